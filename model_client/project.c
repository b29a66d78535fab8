/*
 * project.c - the project's other files in a prompt.
 *
 * With a repository format (Qwen2.5-Coder's and StarCoder2's, as their
 * model cards and llama.cpp's /infill lay it out): the repository's name,
 * then each chunk as a file (the separator, its path, a line break, its
 * text), then the separator and the document's own path, and the
 * fill-in-the-middle prompt after it.  Without one: each chunk under a
 * comment line with its path, then a comment line with the document's path,
 * all at the start of the prefix, where the model reads them as text of
 * the file before the code.
 */
#include "seam_model_client.h"

#include <string.h>

bool mc_template_has_repo(const mc_template *tmpl)
{
    return tmpl && tmpl->repo_name && tmpl->file_sep;
}

mc_project *mc_project_copy(const mc_project *project)
{
    if (!project || !project->count)
        return NULL;
    mc_project *p = sm_calloc(1, sizeof *p);
    p->repo = sm_strdup(project->repo ? project->repo : "");
    p->path = sm_strdup(project->path ? project->path : "");
    p->comment = project->comment ? sm_strdup(project->comment) : NULL;
    mc_file_chunk *chunks = sm_calloc(project->count, sizeof *chunks);
    for (uint32_t i = 0; i < project->count; i++) {
        chunks[i].path = sm_strdup(project->chunks[i].path);
        chunks[i].text = sm_strndup(project->chunks[i].text, project->chunks[i].len);
        chunks[i].len = project->chunks[i].len;
    }
    p->chunks = chunks;
    p->count = project->count;
    return p;
}

void mc_project_free(mc_project *project)
{
    if (!project)
        return;
    for (uint32_t i = 0; i < project->count; i++) {
        sm_free((void *)project->chunks[i].path);
        sm_free((void *)project->chunks[i].text);
    }
    sm_free((void *)project->chunks);
    sm_free((void *)project->repo);
    sm_free((void *)project->path);
    sm_free((void *)project->comment);
    sm_free(project);
}

/* A text piece: its bytes, or a path with a line break (or a comment line
 * naming it). */
static void mc__path_line(const mc_project *p, const char *path, mc_piece_cb piece, void *data, bool comment)
{
    size_t len = strlen(path);
    char *line = sm_malloc(len + (comment ? strlen(p->comment) + 1 : 0) + 2);
    size_t n = 0;
    if (comment) {
        memcpy(line, p->comment, strlen(p->comment));
        n = strlen(p->comment);
        line[n++] = ' ';
    }
    memcpy(line + n, path, len);
    n += len;
    line[n++] = '\n';
    piece(data, line, n, false);
    sm_free(line);
}

void mc_project_pieces(const mc_template *tmpl, const mc_project *project, uint32_t count, mc_piece_cb piece,
                       void *data)
{
    if (!project || !project->count)
        return;
    if (count > project->count)
        count = project->count;
    if (!mc_template_has_repo(tmpl)) {
        if (!project->comment)
            return;
        for (uint32_t i = 0; i < count; i++) {
            mc__path_line(project, project->chunks[i].path, piece, data, true);
            piece(data, project->chunks[i].text, project->chunks[i].len, false);
        }
        mc__path_line(project, project->path, piece, data, true);
        return;
    }
    piece(data, tmpl->repo_name, strlen(tmpl->repo_name), true);
    if (tmpl->repo_line_break)
        mc__path_line(project, project->repo, piece, data, false);
    else
        piece(data, project->repo, strlen(project->repo), false);
    for (uint32_t i = 0; i < count; i++) {
        piece(data, tmpl->file_sep, strlen(tmpl->file_sep), true);
        mc__path_line(project, project->chunks[i].path, piece, data, false);
        piece(data, project->chunks[i].text, project->chunks[i].len, false);
    }
    piece(data, tmpl->file_sep, strlen(tmpl->file_sep), true);
    mc__path_line(project, project->path, piece, data, false);
}

void mc_project_fit(const int32_t *ids, uint32_t n, int32_t sep, uint32_t room, uint32_t *keep, uint32_t *tail)
{
    *keep = *tail = n;
    if (n <= room)
        return;
    *keep = 0;
    uint32_t last = n;
    while (sep >= 0 && last > 0 && ids[last - 1] != sep)
        last--;
    if (sep < 0 || last == 0)
        return;
    *tail = last - 1;
    for (uint32_t i = 0; i < *tail; i++)
        if (ids[i] == sep && i + (n - *tail) <= room)
            *keep = i;
    if (*keep == 0)
        *tail = n;   /* not even the repository's name and the document's path */
}

typedef struct mc__into {
    sm_buf *out;
    int rc;
} mc__into;

static void mc__append_piece(void *data, const char *text, size_t len, bool special)
{
    (void)special;
    mc__into *into = data;
    if (into->rc == SM_OK)
        into->rc = sm_buf_append(into->out, text, len);
}

int mc_project_head(const mc_template *tmpl, const mc_project *project, uint32_t count, sm_buf *out)
{
    mc__into into = {out, SM_OK};
    mc_project_pieces(tmpl, project, count, mc__append_piece, &into);
    return into.rc;
}

int mc_template_render_project(const mc_template *tmpl, const mc_project *project, const char *prefix,
                               size_t prefix_len, const char *suffix, size_t suffix_len, sm_buf *out)
{
    if (!project || !project->count)
        return mc_template_render(tmpl, prefix, prefix_len, suffix, suffix_len, out);
    sm_buf head;
    sm_buf_init(&head, out->max);
    int rc = mc_project_head(tmpl, project, project->count, &head);
    if (rc == SM_OK && mc_template_has_repo(tmpl)) {
        rc = sm_buf_append(out, head.data ? head.data : "", head.len);
        if (rc == SM_OK)
            rc = mc_template_render(tmpl, prefix, prefix_len, suffix, suffix_len, out);
    } else if (rc == SM_OK) {
        rc = sm_buf_append(&head, prefix, prefix_len);
        if (rc == SM_OK)
            rc = mc_template_render(tmpl, head.data ? head.data : "", head.len, suffix, suffix_len, out);
    }
    sm_buf_free(&head);
    return rc;
}
