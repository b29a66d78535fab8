/*
 * ngram.c - the embedded model: a piece n-gram model with interpolated
 * Kneser-Ney smoothing.
 *
 * Text is cut into pieces (see mc__split): a line break with the next line's
 * indentation, or optional spaces followed by a name or number, an operator
 * or one other character.  Every sequence of up to MC__ORDER pieces seen in
 * training is a node of a trie keyed by (parent, piece) in one open-addressing
 * table.  Each node keeps its count, how many distinct pieces followed it
 * (types), and the Kneser-Ney continuation figures: how many distinct pieces
 * preceded it (cont), and, for it as a context, the sum of its children's
 * cont and how many children have one.
 *
 * P(w | h) = max(c(hw) - D, 0) / c(h.) + D * types(h) / c(h.) * P'(w | h')
 * where P' is the same with continuation counts, down to the uniform
 * distribution over the vocabulary.  Memory is capped by max_nodes: once it
 * is reached, unseen sequences are no longer added (counts of known ones
 * still grow), so the result depends only on the corpus and its order.
 */
#include "seam_model_client.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    MC__ORDER = 4,           /* pieces per n-gram: three of context */
    MC__MAX_PIECE = 48,      /* longer runs are cut */
    MC__TAIL = 600,          /* bytes of text looked at for a prediction */
    MC__MAX_SCAN = 400,      /* children looked at per context */
    MC__MAX_PREFIX = 3000,   /* vocabulary entries looked at for a partial piece */
    MC__TOP_UNIGRAMS = 48,
};

static const double MC__D = 0.75;

typedef struct mc__node {
    uint32_t parent, piece;
    uint32_t count;          /* times the sequence was seen */
    uint32_t total;          /* sum of the children's counts */
    uint32_t types;          /* children */
    uint32_t cont;           /* distinct pieces seen before the sequence */
    uint32_t cont_sum;       /* sum of the children's cont */
    uint32_t cont_types;     /* children with cont > 0 */
    uint32_t first_child, next_sibling;  /* 0: none (node 0 is the root) */
} mc__node;

struct mc_ngram {
    uint32_t max_nodes;
    SM_ARRAY(mc__node) nodes;
    uint32_t *slots;         /* node ids + 1, keyed by (parent, piece) */
    uint32_t slot_mask;
    /* The vocabulary: piece id -> text, and a hash from text to id. */
    SM_ARRAY(char) text;
    SM_ARRAY(uint32_t) piece_off;
    SM_ARRAY(uint8_t) piece_len;
    SM_ARRAY(uint32_t) piece_node;   /* the unigram node of each piece */
    uint32_t *vocab_slots;
    uint32_t vocab_mask;
    SM_ARRAY(uint32_t) sorted;       /* piece ids by text, for prefix search */
    uint32_t top[MC__TOP_UNIGRAMS];
    uint32_t top_count;
    uint64_t pieces_seen;
    bool full;
    bool loaded;
};

/* ---- Pieces ---------------------------------------------------------------- */

static bool mc__word_byte(unsigned char c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

static const char *const mc__operators[] = {
    "**=", "//=", ">>=", "<<=", "...", "->", "==", "!=", "<=", ">=", "**", "//", "+=", "-=", "*=",
    "/=", "%=", "&=", "|=", "^=", ":=", ">>", "<<", "@=", NULL,
};

/* The length of the piece starting at text[i]. */
static size_t mc__piece_len(const char *text, size_t len, size_t i)
{
    size_t j = i;
    if (text[j] == '\r' || text[j] == '\n') {
        j += (text[j] == '\r' && j + 1 < len && text[j + 1] == '\n') ? 2 : 1;
        while (j < len && (text[j] == ' ' || text[j] == '\t') && j - i < MC__MAX_PIECE)
            j++;
        return j - i;
    }
    while (j < len && (text[j] == ' ' || text[j] == '\t') && j - i < MC__MAX_PIECE)
        j++;
    if (j == len || text[j] == '\r' || text[j] == '\n' || j - i >= MC__MAX_PIECE)
        return j - i;
    if (mc__word_byte((unsigned char)text[j])) {
        while (j < len && mc__word_byte((unsigned char)text[j]) && j - i < MC__MAX_PIECE)
            j++;
        return j - i;
    }
    for (const char *const *op = mc__operators; *op; op++) {
        size_t n = strlen(*op);
        if (j + n <= len && memcmp(text + j, *op, n) == 0)
            return j + n - i;
    }
    /* One character (a whole UTF-8 sequence). */
    j++;
    while (j < len && ((unsigned char)text[j] & 0xc0) == 0x80 && j - i < MC__MAX_PIECE)
        j++;
    return j - i;
}

typedef struct mc__span {
    uint32_t start, len;
} mc__span;

typedef SM_ARRAY(mc__span) mc__spans;
typedef SM_ARRAY(uint32_t) mc__ids;

static void mc__split(const char *text, size_t len, mc__spans *out)
{
    for (size_t i = 0; i < len;) {
        size_t n = mc__piece_len(text, len, i);
        sm_array_push(out, ((mc__span){(uint32_t)i, (uint32_t)n}));
        i += n;
    }
}

/* ---- Tables ------------------------------------------------------------------ */

static uint64_t mc__hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return sm_mix64(h);
}

static uint32_t mc__find_child(const mc_ngram *m, uint32_t parent, uint32_t piece)
{
    if (!m->slots)
        return 0;
    uint64_t h = sm_mix64(((uint64_t)parent << 32) | piece);
    for (uint32_t s = (uint32_t)h & m->slot_mask;; s = (s + 1) & m->slot_mask) {
        uint32_t v = m->slots[s];
        if (!v)
            return 0;
        const mc__node *n = &m->nodes.items[v - 1];
        if (n->parent == parent && n->piece == piece)
            return v - 1;
    }
}

static void mc__slot_insert(uint32_t *slots, uint32_t mask, const mc__node *nodes, uint32_t id)
{
    uint64_t h = sm_mix64(((uint64_t)nodes[id].parent << 32) | nodes[id].piece);
    uint32_t s = (uint32_t)h & mask;
    while (slots[s])
        s = (s + 1) & mask;
    slots[s] = id + 1;
}

/* Makes the node table `cap` slots (a power of two) and inserts every node. */
static void mc__rebuild_slots(mc_ngram *m, uint32_t cap)
{
    uint32_t *slots = sm_calloc(cap, sizeof *slots);
    sm_advise_filled(slots, (size_t)cap * sizeof *slots);
    for (uint32_t id = 1; id < m->nodes.size; id++)
        mc__slot_insert(slots, cap - 1, m->nodes.items, id);
    sm_free(m->slots);
    m->slots = slots;
    m->slot_mask = cap - 1;
}

static void mc__grow_slots(mc_ngram *m)
{
    mc__rebuild_slots(m, m->slots ? (m->slot_mask + 1) * 2 : 1024);
}

/* The child (parent, piece), created when absent and there is room; 0 when
 * it cannot be created.  *created tells whether it is new. */
static uint32_t mc__child(mc_ngram *m, uint32_t parent, uint32_t piece, bool *created)
{
    *created = false;
    uint32_t id = mc__find_child(m, parent, piece);
    if (id)
        return id;
    if (m->nodes.size >= m->max_nodes) {
        m->full = true;
        return 0;
    }
    if (!m->slots || (uint64_t)m->nodes.size * 2 >= m->slot_mask + 1)
        mc__grow_slots(m);
    id = m->nodes.size;
    mc__node n = {.parent = parent, .piece = piece};
    n.next_sibling = m->nodes.items[parent].first_child;
    sm_array_push(&m->nodes, n);
    m->nodes.items[parent].first_child = id;
    m->nodes.items[parent].types++;
    mc__slot_insert(m->slots, m->slot_mask, m->nodes.items, id);
    *created = true;
    return id;
}

static uint32_t mc__vocab_find(const mc_ngram *m, const char *s, size_t n, uint64_t h)
{
    if (!m->vocab_slots)
        return UINT32_MAX;
    for (uint32_t k = (uint32_t)h & m->vocab_mask;; k = (k + 1) & m->vocab_mask) {
        uint32_t v = m->vocab_slots[k];
        if (!v)
            return UINT32_MAX;
        uint32_t id = v - 1;
        if (m->piece_len.items[id] == n && memcmp(m->text.items + m->piece_off.items[id], s, n) == 0)
            return id;
    }
}

/* Makes the vocabulary table `cap` slots (a power of two) and inserts every piece. */
static void mc__vocab_rebuild(mc_ngram *m, uint32_t cap)
{
    uint32_t *slots = sm_calloc(cap, sizeof *slots);
    for (uint32_t id = 0; id < m->piece_off.size; id++) {
        uint64_t h = mc__hash_bytes(m->text.items + m->piece_off.items[id], m->piece_len.items[id]);
        uint32_t k = (uint32_t)h & (cap - 1);
        while (slots[k])
            k = (k + 1) & (cap - 1);
        slots[k] = id + 1;
    }
    sm_free(m->vocab_slots);
    m->vocab_slots = slots;
    m->vocab_mask = cap - 1;
}

static void mc__vocab_grow(mc_ngram *m)
{
    mc__vocab_rebuild(m, m->vocab_slots ? (m->vocab_mask + 1) * 2 : 1024);
}

/* The id of a piece, added when new and there is room; UINT32_MAX if not. */
static uint32_t mc__vocab_add(mc_ngram *m, const char *s, size_t n)
{
    uint64_t h = mc__hash_bytes(s, n);
    uint32_t id = mc__vocab_find(m, s, n, h);
    if (id != UINT32_MAX)
        return id;
    if (m->nodes.size >= m->max_nodes) {
        m->full = true;
        return UINT32_MAX;
    }
    if (!m->vocab_slots || (uint64_t)m->piece_off.size * 2 >= m->vocab_mask + 1)
        mc__vocab_grow(m);
    id = m->piece_off.size;
    sm_array_push(&m->piece_off, m->text.size);
    sm_array_push(&m->piece_len, (uint8_t)n);
    sm_array_reserve(&m->text, m->text.size + n);
    memcpy(m->text.items + m->text.size, s, n);
    m->text.size += (uint32_t)n;
    bool created;
    uint32_t node = mc__child(m, 0, id, &created);
    sm_array_push(&m->piece_node, node);
    uint32_t k = (uint32_t)h & m->vocab_mask;
    while (m->vocab_slots[k])
        k = (k + 1) & m->vocab_mask;
    m->vocab_slots[k] = id + 1;
    return id;
}

/* ---- Training ------------------------------------------------------------------ */

mc_ngram *mc_ngram_new(uint32_t max_nodes)
{
    mc_ngram *m = sm_calloc(1, sizeof *m);
    m->max_nodes = max_nodes < 1024 ? 1024 : max_nodes;
    sm_array_push(&m->nodes, ((mc__node){0}));
    return m;
}

void mc_ngram_free(mc_ngram *m)
{
    if (!m)
        return;
    sm_array_free(&m->nodes);
    sm_free(m->slots);
    sm_array_free(&m->text);
    sm_array_free(&m->piece_off);
    sm_array_free(&m->piece_len);
    sm_array_free(&m->piece_node);
    sm_free(m->vocab_slots);
    sm_array_free(&m->sorted);
    sm_free(m);
}

/* Counts one piece after the context nodes ctx[0..MC__ORDER-1) (ctx[k] is
 * the node of the last k pieces, 0 when unknown) and shifts the context. */
static void mc__count(mc_ngram *m, uint32_t ctx[MC__ORDER], uint32_t piece)
{
    uint32_t fresh[MC__ORDER + 1] = {0};
    bool created[MC__ORDER + 1] = {false};
    for (uint32_t k = 0; k < MC__ORDER; k++) {
        if (k > 0 && !ctx[k])
            break;
        uint32_t id = k == 0 ? m->piece_node.items[piece] : mc__child(m, ctx[k], piece, &created[k + 1]);
        if (!id)
            break;
        mc__node *n = &m->nodes.items[id];
        n->count++;
        m->nodes.items[ctx[k]].total++;
        fresh[k + 1] = id;
        /* A new sequence x.s gives s one more distinct predecessor. */
        if (k > 0 && created[k + 1] && fresh[k]) {
            mc__node *s = &m->nodes.items[fresh[k]];
            if (s->cont++ == 0)
                m->nodes.items[s->parent].cont_types++;
            m->nodes.items[s->parent].cont_sum++;
        }
    }
    for (uint32_t k = MC__ORDER - 1; k > 0; k--)
        ctx[k] = fresh[k];
    ctx[0] = 0;
}

void mc_ngram_train(mc_ngram *m, const char *text, size_t len)
{
    mc__spans spans;
    sm_array_init(&spans);
    mc__split(text, len, &spans);
    uint32_t ctx[MC__ORDER] = {0};
    for (uint32_t i = 0; i < spans.size; i++) {
        uint32_t piece = mc__vocab_add(m, text + spans.items[i].start, spans.items[i].len);
        if (piece == UINT32_MAX || !m->piece_node.items[piece]) {
            memset(ctx, 0, sizeof ctx);
            continue;
        }
        /* Unigram continuation counts come from bigrams; a piece at a
         * document's start has no predecessor. */
        mc__count(m, ctx, piece);
        m->pieces_seen++;
    }
    sm_array_free(&spans);
}

static int mc__cmp_piece(const void *a, const void *b, void *model)
{
    const mc_ngram *m = model;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    size_t lx = m->piece_len.items[x], ly = m->piece_len.items[y];
    int c = memcmp(m->text.items + m->piece_off.items[x], m->text.items + m->piece_off.items[y], lx < ly ? lx : ly);
    if (c)
        return c;
    return lx < ly ? -1 : lx > ly ? 1 : (x < y ? -1 : x > y);
}

void mc_ngram_finish(mc_ngram *m)
{
    sm_array_clear(&m->sorted);
    for (uint32_t id = 0; id < m->piece_off.size; id++)
        sm_array_push(&m->sorted, id);
    if (m->sorted.size)
        qsort_r(m->sorted.items, m->sorted.size, sizeof(uint32_t), mc__cmp_piece, m);
    /* The pieces with the most distinct predecessors. */
    m->top_count = 0;
    for (uint32_t id = 0; id < m->piece_off.size; id++) {
        uint32_t c = m->nodes.items[m->piece_node.items[id]].cont;
        uint32_t j = m->top_count < MC__TOP_UNIGRAMS ? m->top_count++ : MC__TOP_UNIGRAMS;
        while (j > 0 && m->nodes.items[m->piece_node.items[m->top[j - 1]]].cont < c) {
            if (j < MC__TOP_UNIGRAMS)
                m->top[j] = m->top[j - 1];
            j--;
        }
        if (j < MC__TOP_UNIGRAMS)
            m->top[j] = id;
    }
}

void mc_ngram_get_stats(const mc_ngram *m, mc_ngram_stats *stats)
{
    stats->vocabulary = m->piece_off.size;
    stats->nodes = m->nodes.size;
    stats->pieces = m->pieces_seen;
    stats->full = m->full;
    stats->loaded = m->loaded;
    stats->bytes = sizeof *m + (size_t)m->nodes.capacity * sizeof(mc__node) +
                   (m->slots ? (size_t)(m->slot_mask + 1) * 4 : 0) + m->text.capacity +
                   (size_t)m->piece_off.capacity * 4 + m->piece_len.capacity + (size_t)m->piece_node.capacity * 4 +
                   (m->vocab_slots ? (size_t)(m->vocab_mask + 1) * 4 : 0) + (size_t)m->sorted.capacity * 4;
}

/* ---- Saved models ------------------------------------------------------------- */

#define MC__SAVED_MAGIC "SEAMNGR1"

/* Appends bytes to out while every append so far succeeded (*rc). */
static void mc__put(sm_buf *out, const void *bytes, size_t len, int *rc)
{
    if (*rc == SM_OK && len)
        *rc = sm_buf_append(out, bytes, len);
}

static void mc__put_u64(sm_buf *out, uint64_t v, int *rc)
{
    if (*rc == SM_OK)
        *rc = sm_buf_append_u64(out, v);
}

int mc_ngram_save(const mc_ngram *m, sm_buf *out)
{
    int rc = SM_OK;
    mc__put(out, MC__SAVED_MAGIC, 8, &rc);
    mc__put_u64(out, sizeof(mc__node), &rc);
    mc__put_u64(out, m->max_nodes, &rc);
    mc__put_u64(out, m->full, &rc);
    mc__put_u64(out, m->pieces_seen, &rc);
    mc__put_u64(out, m->nodes.size, &rc);
    mc__put_u64(out, m->text.size, &rc);
    mc__put_u64(out, m->piece_off.size, &rc);
    mc__put(out, m->nodes.items, (size_t)m->nodes.size * sizeof(mc__node), &rc);
    mc__put(out, m->text.items, m->text.size, &rc);
    mc__put(out, m->piece_off.items, (size_t)m->piece_off.size * sizeof(uint32_t), &rc);
    mc__put(out, m->piece_len.items, m->piece_len.size, &rc);
    mc__put(out, m->piece_node.items, (size_t)m->piece_node.size * sizeof(uint32_t), &rc);
    return rc;
}

/* Whether a loaded model's indices all lie inside it: every node's parent
 * made before it and its piece known, every piece's text inside the text
 * and its node a unigram of it.  (The hash tables are made here, not read.) */
static bool mc__saved_consistent(const mc_ngram *m)
{
    uint32_t nodes = m->nodes.size, pieces = m->piece_off.size;
    if (nodes == 0 || nodes > m->max_nodes + 1)
        return false;
    for (uint32_t id = 1; id < nodes; id++) {
        const mc__node *n = &m->nodes.items[id];
        if (n->parent >= id || n->piece >= pieces || n->first_child >= nodes || n->next_sibling >= nodes)
            return false;
    }
    if (m->nodes.items[0].first_child >= nodes)
        return false;
    for (uint32_t id = 0; id < pieces; id++) {
        uint32_t node = m->piece_node.items[id];
        if (m->piece_len.items[id] == 0 || m->piece_len.items[id] > MC__MAX_PIECE ||
            (uint64_t)m->piece_off.items[id] + m->piece_len.items[id] > m->text.size || node >= nodes ||
            (node && (m->nodes.items[node].parent != 0 || m->nodes.items[node].piece != id)))
            return false;
    }
    return true;
}

/* The size of a table that holds `entries` as training grows it: 1024
 * doubled until entries fill less than half of it. */
static uint32_t mc__table_size(uint32_t entries)
{
    uint32_t cap = 1024;
    while ((uint64_t)entries * 2 >= cap)
        cap *= 2;
    return cap;
}

mc_ngram *mc_ngram_load(const void *data, size_t len)
{
    sm_reader r;
    sm_reader_init(&r, data, len);
    char magic[8];
    sm_read_into(&r, magic, sizeof magic);
    uint64_t node_size = sm_read_u64(&r), max_nodes = sm_read_u64(&r), full = sm_read_u64(&r);
    uint64_t seen = sm_read_u64(&r), nodes = sm_read_u64(&r), text = sm_read_u64(&r), pieces = sm_read_u64(&r);
    /* sizes checked against the bytes left before anything is allocated */
    size_t left = (size_t)(r.end - r.at);
    if (!r.ok || memcmp(magic, MC__SAVED_MAGIC, 8) != 0 || node_size != sizeof(mc__node) || nodes == 0 ||
        max_nodes > UINT32_MAX || nodes > max_nodes + 1 || pieces > nodes || text > UINT32_MAX ||
        nodes * sizeof(mc__node) + text + pieces * (2 * sizeof(uint32_t) + 1) != left)
        return NULL;
    mc_ngram *m = sm_calloc(1, sizeof *m);
    m->max_nodes = (uint32_t)max_nodes;
    m->full = full != 0;
    m->pieces_seen = seen;
    sm_array_grow_by(&m->nodes, (uint32_t)nodes);
    sm_advise_filled(m->nodes.items, (size_t)nodes * sizeof(mc__node));
    sm_read_into(&r, m->nodes.items, (size_t)nodes * sizeof(mc__node));
    sm_array_grow_by(&m->text, (uint32_t)text);
    sm_read_into(&r, m->text.items, (size_t)text);
    sm_array_grow_by(&m->piece_off, (uint32_t)pieces);
    sm_read_into(&r, m->piece_off.items, (size_t)pieces * sizeof(uint32_t));
    sm_array_grow_by(&m->piece_len, (uint32_t)pieces);
    sm_read_into(&r, m->piece_len.items, (size_t)pieces);
    sm_array_grow_by(&m->piece_node, (uint32_t)pieces);
    sm_read_into(&r, m->piece_node.items, (size_t)pieces * sizeof(uint32_t));
    if (!r.ok || !mc__saved_consistent(m)) {
        mc_ngram_free(m);
        return NULL;
    }
    /* the hash tables, sized as training leaves them: more than twice
     * their entries */
    mc__rebuild_slots(m, mc__table_size(m->nodes.size));
    mc__vocab_rebuild(m, mc__table_size(m->piece_off.size));
    mc_ngram_finish(m);
    m->loaded = true;
    return m;
}

void mc_ngram_set_max_nodes(mc_ngram *m, uint32_t max_nodes)
{
    if (max_nodes > m->max_nodes) {
        m->max_nodes = max_nodes;
        m->full = false;
    }
}

/* ---- Prediction ------------------------------------------------------------------ */

/* The context nodes for a history of piece ids (the last MC__ORDER-1 used):
 * ctx[k] is the node of the last k pieces; returns the deepest k that was
 * seen followed by something. */
static uint32_t mc__context(const mc_ngram *m, const uint32_t *hist, uint32_t n, uint32_t ctx[MC__ORDER])
{
    memset(ctx, 0, MC__ORDER * sizeof *ctx);
    uint32_t depth = 0;
    for (uint32_t k = 1; k < MC__ORDER && k <= n; k++) {
        /* The node of hist[n-k..n): walk down from the root. */
        uint32_t node = 0;
        for (uint32_t i = n - k; i < n && (i == n - k || node); i++)
            node = hist[i] == UINT32_MAX ? 0 : mc__find_child(m, node, hist[i]);
        if (!node)
            break;
        ctx[k] = node;
        if (m->nodes.items[node].total)
            depth = k;
    }
    return depth;
}

static double mc__prob(const mc_ngram *m, const uint32_t ctx[MC__ORDER], uint32_t depth, uint32_t piece)
{
    uint32_t vocab = m->piece_off.size ? m->piece_off.size : 1;
    double p = 1.0 / vocab;
    for (uint32_t k = 0; k <= depth; k++) {
        const mc__node *h = &m->nodes.items[ctx[k]];
        uint32_t child = piece == UINT32_MAX ? 0 : mc__find_child(m, ctx[k], piece);
        double c, tot, types;
        if (k == depth) {
            c = child ? m->nodes.items[child].count : 0;
            tot = h->total;
            types = h->types;
        } else {
            c = child ? m->nodes.items[child].cont : 0;
            tot = h->cont_sum;
            types = h->cont_types;
        }
        if (tot <= 0)
            continue;
        p = (fmax(c - MC__D, 0) + MC__D * types * p) / tot;
    }
    return p;
}

static const char *mc__piece_text(const mc_ngram *m, uint32_t id, size_t *len)
{
    *len = m->piece_len.items[id];
    return m->text.items + m->piece_off.items[id];
}

/* The first index of the sorted vocabulary whose text is >= s. */
static uint32_t mc__lower_bound(const mc_ngram *m, const char *s, size_t n)
{
    uint32_t lo = 0, hi = m->sorted.size;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        size_t len;
        const char *t = mc__piece_text(m, m->sorted.items[mid], &len);
        int c = memcmp(t, s, len < n ? len : n);
        if (c < 0 || (c == 0 && len < n))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

typedef struct mc__cand {
    uint32_t piece;
    uint32_t skip;      /* bytes of the piece already in the text */
    uint32_t then;      /* a piece that follows it, or UINT32_MAX */
    double p;
} mc__cand;

typedef SM_ARRAY(mc__cand) mc__cands;

static int mc__cmp_cand(const void *a, const void *b)
{
    const mc__cand *x = a, *y = b;
    if (x->p != y->p)
        return x->p > y->p ? -1 : 1;
    if (x->piece != y->piece)
        return x->piece < y->piece ? -1 : 1;
    return x->then < y->then ? -1 : x->then > y->then;
}

static void mc__add_children(const mc_ngram *m, uint32_t node, mc__cands *out)
{
    uint32_t seen = 0;
    for (uint32_t c = m->nodes.items[node].first_child; c && seen < MC__MAX_SCAN; c = m->nodes.items[c].next_sibling, seen++)
        sm_array_push(out, ((mc__cand){m->nodes.items[c].piece, 0, UINT32_MAX, 0}));
}

static bool mc__is_space_piece(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return false;
    return true;
}

/* Pieces of text[0..len)'s tail, and whether the last one may still grow. */
static void mc__tail_pieces(const mc_ngram *m, const char *text, size_t len, mc__ids *ids,
                            mc__spans *spans, size_t *base)
{
    size_t start = len > MC__TAIL ? len - MC__TAIL : 0;
    while (start > 0 && start < len && text[start - 1] != '\n')
        start++;
    *base = start;
    mc__split(text + start, len - start, spans);
    for (uint32_t i = 0; i < spans->size; i++) {
        const char *s = text + start + spans->items[i].start;
        size_t n = spans->items[i].len;
        sm_array_push(ids, mc__vocab_find(m, s, n, mc__hash_bytes(s, n)));
    }
}

void mc_ngram_predict(const mc_ngram *m, const char *text, size_t len, const char *right, size_t right_len,
                      uint32_t count, mc_step *out)
{
    out->chosen = -1;
    mc__ids ids;
    sm_array_init(&ids);
    mc__spans spans;
    sm_array_init(&spans);
    size_t base;
    mc__tail_pieces(m, text, len, &ids, &spans, &base);

    /* A last piece that may still grow: a name, or spaces. */
    const char *partial = NULL;
    size_t partial_len = 0;
    if (spans.size) {
        const mc__span *last = &spans.items[spans.size - 1];
        const char *s = text + base + last->start;
        unsigned char end = (unsigned char)s[last->len - 1];
        if (mc__word_byte(end) || ((end == ' ' || end == '\t') && s[0] != '\n' && s[0] != '\r')) {
            partial = s;
            partial_len = last->len;
        }
    }
    uint32_t hist_n = ids.size - (partial ? 1 : 0);
    uint32_t ctx[MC__ORDER];
    uint32_t depth = mc__context(m, ids.items, hist_n, ctx);

    mc__cands cands;
    sm_array_init(&cands);
    if (partial) {
        uint32_t i = mc__lower_bound(m, partial, partial_len);
        for (uint32_t seen = 0; i < m->sorted.size && seen < MC__MAX_PREFIX; i++, seen++) {
            size_t n;
            const char *t = mc__piece_text(m, m->sorted.items[i], &n);
            if (n < partial_len || memcmp(t, partial, partial_len) != 0)
                break;
            if (n > partial_len)
                sm_array_push(&cands, ((mc__cand){m->sorted.items[i], (uint32_t)partial_len, UINT32_MAX, 0}));
        }
        /* The partial piece as it is, followed by a piece that cannot merge with it. */
        uint32_t whole = ids.items[ids.size - 1];
        if (whole != UINT32_MAX && mc__word_byte((unsigned char)partial[partial_len - 1])) {
            uint32_t ctx2[MC__ORDER];
            uint32_t depth2 = mc__context(m, ids.items, ids.size, ctx2);
            double p_whole = mc__prob(m, ctx, depth, whole);
            mc__cands next;
            sm_array_init(&next);
            for (uint32_t k = depth2; k >= 1; k--)
                mc__add_children(m, ctx2[k], &next);
            for (uint32_t k = 0; k < m->top_count; k++)
                sm_array_push(&next, ((mc__cand){m->top[k], 0, UINT32_MAX, 0}));
            for (uint32_t k = 0; k < next.size; k++) {
                size_t n;
                const char *t = mc__piece_text(m, next.items[k].piece, &n);
                if (mc__word_byte((unsigned char)t[0]))
                    continue;
                double p = p_whole * mc__prob(m, ctx2, depth2, next.items[k].piece);
                sm_array_push(&cands, ((mc__cand){whole, (uint32_t)partial_len, next.items[k].piece, p}));
            }
            sm_array_free(&next);
        }
    } else {
        for (uint32_t k = depth; k >= 1; k--)
            mc__add_children(m, ctx[k], &cands);
        for (uint32_t k = 0; k < m->top_count; k++)
            sm_array_push(&cands, ((mc__cand){m->top[k], 0, UINT32_MAX, 0}));
    }
    for (uint32_t k = 0; k < cands.size; k++)
        if (cands.items[k].then == UINT32_MAX)
            cands.items[k].p = mc__prob(m, ctx, depth, cands.items[k].piece);
    if (cands.size)
        qsort(cands.items, cands.size, sizeof *cands.items, mc__cmp_cand);

    sm_buf piece;
    sm_buf_init(&piece, 4 * MC__MAX_PIECE);
    for (uint32_t k = 0, added = 0; k < cands.size && added < count; k++) {
        if (k > 0 && cands.items[k].piece == cands.items[k - 1].piece && cands.items[k].then == cands.items[k - 1].then)
            continue;
        size_t n;
        const char *t = mc__piece_text(m, cands.items[k].piece, &n);
        sm_buf_clear(&piece);
        sm_buf_append(&piece, t + cands.items[k].skip, n - cands.items[k].skip);
        if (cands.items[k].then != UINT32_MAX) {
            t = mc__piece_text(m, cands.items[k].then, &n);
            sm_buf_append(&piece, t, n);
        }
        if (piece.len == 0)
            continue;
        mc_step_add(out, piece.data, piece.len, log(cands.items[k].p), false);
        added++;
    }
    sm_buf_free(&piece);

    /* The end: how likely the right context's first pieces are here.  The
     * text and the right context are cut into pieces together, so a piece
     * that crosses the cursor counts whole. */
    double p_end;
    {
        size_t head = right_len < 256 ? right_len : 256;
        head = sm_utf8_boundary_before((const uint8_t *)right, head);
        size_t tail_len = len - base;
        char *joint = sm_malloc(tail_len + head + 1);
        memcpy(joint, text + base, tail_len);
        memcpy(joint + tail_len, right, head);
        mc__spans js;
        sm_array_init(&js);
        mc__split(joint, tail_len + head, &js);
        mc__ids jids;
        sm_array_init(&jids);
        uint32_t first = js.size;
        for (uint32_t i = 0; i < js.size; i++) {
            const char *s = joint + js.items[i].start;
            size_t n = js.items[i].len;
            sm_array_push(&jids, mc__vocab_find(m, s, n, mc__hash_bytes(s, n)));
            if (first == js.size && js.items[i].start + n > tail_len)
                first = i;
        }
        if (first == js.size) {
            /* Nothing after the cursor: the end of a line ends it. */
            uint32_t jctx[MC__ORDER];
            uint32_t jd = mc__context(m, jids.items, jids.size, jctx);
            p_end = 0;
            uint32_t i = mc__lower_bound(m, "\n", 1);
            for (uint32_t seen = 0; i < m->sorted.size && seen < 256; i++, seen++) {
                size_t n;
                const char *t = mc__piece_text(m, m->sorted.items[i], &n);
                if (t[0] != '\n')
                    break;
                p_end += mc__prob(m, jctx, jd, m->sorted.items[i]);
            }
        } else {
            p_end = 1;
            for (uint32_t i = first; i < js.size && i < first + 2; i++) {
                uint32_t jctx[MC__ORDER];
                uint32_t jd = mc__context(m, jids.items, i, jctx);
                p_end *= mc__prob(m, jctx, jd, jids.items[i]);
                if (!mc__is_space_piece(joint + js.items[i].start, js.items[i].len))
                    break;
            }
        }
        sm_array_free(&jids);
        sm_array_free(&js);
        sm_free(joint);
    }
    mc_step_add(out, "", 0, log(p_end > 0 ? p_end : 1e-300), true);
    mc_step_normalize(out);
    if (out->count > count + 1) {
        /* Keep the end candidate even when it ranks below the cut. */
        uint32_t keep = 0;
        for (uint32_t i = 0; i < out->count; i++) {
            if (i < count || out->cands[i].eos)
                out->cands[keep++] = out->cands[i];
            else
                sm_free(out->cands[i].bytes);
        }
        out->count = keep;
    }
    out->chosen = out->count ? 0 : -1;
    sm_array_free(&cands);
    sm_array_free(&ids);
    sm_array_free(&spans);
}

/* ---- Two models together ------------------------------------------------------------ */

/* The probability a step gives `bytes`, or, when the step does not list it,
 * half its lowest listed probability (the model ranks it below them all). */
static double mc__step_prob(const mc_step *s, const mc_token *t)
{
    double lowest = 1.0;
    for (uint32_t i = 0; i < s->count; i++) {
        const mc_token *c = &s->cands[i];
        if (c->eos == t->eos && (t->eos || (c->len == t->len && memcmp(c->bytes, t->bytes, t->len) == 0)))
            return exp(c->logprob);
        if (!c->eos && exp(c->logprob) < lowest)
            lowest = exp(c->logprob);
    }
    return lowest * 0.5;
}

void mc_ngram_predict_mixed(const mc_ngram *global, const mc_ngram *local, double local_weight, const char *text,
                            size_t len, const char *right, size_t right_len, uint32_t count, mc_step *out)
{
    if (!local || local_weight <= 0) {
        mc_ngram_predict(global, text, len, right, right_len, count, out);
        return;
    }
    mc_step g = {0}, l = {0};
    mc_ngram_predict(global, text, len, right, right_len, count * 2, &g);
    mc_ngram_predict(local, text, len, right, right_len, count * 2, &l);
    mc_step all = {.chosen = -1};
    const mc_step *lists[2] = {&g, &l};
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < lists[k]->count; i++) {
            const mc_token *t = &lists[k]->cands[i];
            double p = local_weight * mc__step_prob(&l, t) + (1 - local_weight) * mc__step_prob(&g, t);
            mc_step_add(&all, t->bytes, t->len, log(p), t->eos);
        }
    }
    mc_step_normalize(&all);   /* sorted; duplicates merged (they carry the same mixture) */
    out->chosen = -1;
    for (uint32_t i = 0, added = 0; i < all.count; i++) {
        if (all.cands[i].eos || added < count) {
            mc_step_add(out, all.cands[i].bytes, all.cands[i].len, all.cands[i].logprob, all.cands[i].eos);
            added += !all.cands[i].eos;
        }
    }
    out->chosen = out->count ? 0 : -1;
    mc_step_free(&g);
    mc_step_free(&l);
    mc_step_free(&all);
}
