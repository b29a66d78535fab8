/*
 * document.c - open documents and their edits.
 */
#include "seam_protocol.h"

#include <string.h>

int lsp_document_new(const char *uri, const char *language, int64_t version, const char *text, size_t len,
                     size_t max_len, lsp_document **out)
{
    if (!sm_utf8_valid((const uint8_t *)text, len, false, NULL))
        return SM_EUTF8;
    if (len > max_len)
        return SM_ETOOBIG;
    lsp_document *doc = sm_calloc(1, sizeof *doc);
    doc->uri = sm_strdup(uri);
    doc->language = language ? sm_strdup(language) : NULL;
    doc->version = version;
    sm_buf_init(&doc->text, max_len);
    if (sm_buf_append(&doc->text, text, len) != SM_OK) {
        lsp_document_free(doc);
        return SM_ENOMEM;
    }
    if (!doc->text.data)
        sm_buf_append(&doc->text, "", 0);
    *out = doc;
    return SM_OK;
}

void lsp_document_free(lsp_document *doc)
{
    if (!doc)
        return;
    sm_free(doc->uri);
    sm_free(doc->language);
    sm_buf_free(&doc->text);
    sm_free(doc);
}

int lsp_document_replace(lsp_document *doc, const char *text, size_t len)
{
    if (!sm_utf8_valid((const uint8_t *)text, len, false, NULL))
        return SM_EUTF8;
    if (len > doc->text.max)
        return SM_ETOOBIG;
    sm_buf next;
    sm_buf_init(&next, doc->text.max);
    if (sm_buf_append(&next, text, len) != SM_OK) {
        sm_buf_free(&next);
        return SM_ENOMEM;
    }
    if (!next.data)
        sm_buf_append(&next, "", 0);
    sm_buf_free(&doc->text);
    doc->text = next;
    return SM_OK;
}

int lsp_document_edit(lsp_document *doc, lsp_position start, lsp_position end, lsp_encoding encoding,
                      const char *text, size_t len)
{
    const char *old = doc->text.data ? doc->text.data : "";
    size_t from, to;
    int rc = lsp_position_to_offset(old, doc->text.len, start, encoding, &from);
    if (rc == SM_OK)
        rc = lsp_position_to_offset(old, doc->text.len, end, encoding, &to);
    if (rc != SM_OK)
        return rc == SM_EUTF8 ? SM_EUTF8 : SM_ERANGE;
    if (to < from)
        return SM_ERANGE;
    if (!sm_utf8_valid((const uint8_t *)text, len, false, NULL))
        return SM_EUTF8;
    size_t new_len = doc->text.len - (to - from) + len;
    if (new_len > doc->text.max)
        return SM_ETOOBIG;
    sm_buf next;
    sm_buf_init(&next, doc->text.max);
    if (sm_buf_append(&next, old, from) || sm_buf_append(&next, text, len) ||
        sm_buf_append(&next, old + to, doc->text.len - to)) {
        sm_buf_free(&next);
        return SM_ENOMEM;
    }
    if (!next.data)
        sm_buf_append(&next, "", 0);
    sm_buf_free(&doc->text);
    doc->text = next;
    return SM_OK;
}
