"""Generates the tiny GGUF models seam's tests run on llama.cpp.

    python3 tests/models/make_models.py --gguf-py DIR --vocab DIR --out DIR

No weights can be downloaded, so the models are made here, deterministically,
around the real vocabularies that llama.cpp ships (vocabulary-only GGUF files
in its models/ folder):

- random models: random weights (seeded), a small llama-shaped or
  qwen2-shaped network, and a real code model's tokenizer.  They answer every
  request like a real model of that vocabulary would, only meaninglessly.
- scripted models: weights arranged so that the next token depends on the
  last token only (attention and feed-forward outputs are zero, so the
  hidden state is the last token's embedding, and each scripted token has an
  embedding of its own), so greedy output and candidate order are known.
  Each entry of a script maps a token to the ranked tokens that follow it;
  every other token is followed by the end of text.
- a model whose vocabulary has no fill-in-the-middle tokens.

The Qwen2.5-Coder tokens the qwen2 vocabulary file lacks (it holds [PAD...]
entries at their ids) are written in as control tokens, with the ids the
fill-in-the-middle model family uses.

Also `--bench`: a random model with Qwen2.5-Coder-0.5B's shape, for timing a
real forward pass (not used by the tests).
"""

import argparse
import hashlib
import json
import os
import sys

import numpy as np

QWEN_FIM = {
    151659: "<|fim_prefix|>",
    151660: "<|fim_middle|>",
    151661: "<|fim_suffix|>",
    151662: "<|fim_pad|>",
    151663: "<|repo_name|>",
    151664: "<|file_sep|>",
}
CONTROL = 3


def byte_encoder():
    """GPT-2's map from bytes to the printable characters byte-level BPE
    vocabularies spell their tokens with."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    chars = keep[:]
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(keep, chars)}


BYTES = byte_encoder()


def spell(text):
    """A piece of text as a byte-level BPE vocabulary spells it."""
    return "".join(BYTES[b] for b in text.encode("utf-8"))


class Vocab:
    """The tokenizer fields of a vocabulary-only GGUF file."""

    def __init__(self, gguf, path, fim=None):
        reader = gguf.GGUFReader(path)
        self.fields = []
        self.tokens = None
        self.types = None
        for name, field in reader.fields.items():
            if not name.startswith("tokenizer."):
                continue
            if name == "tokenizer.ggml.tokens":
                self.tokens = list(field.contents())
            elif name == "tokenizer.ggml.token_type":
                self.types = list(field.contents())
            else:
                self.fields.append((name, field.types, field.contents()))
        for tid, text in (fim or {}).items():
            self.tokens[tid] = text
            self.types[tid] = CONTROL
        self.index = {t: i for i, t in enumerate(self.tokens)}
        self.model = next(v for n, _, v in self.fields if n == "tokenizer.ggml.model")

    def id(self, piece):
        """The id of the token spelling `piece` (text, "<|...|>" names, or
        bytes for a byte-level vocabulary's byte tokens)."""
        if isinstance(piece, bytes):
            return self.index["".join(BYTES[b] for b in piece)]
        if piece in self.index:
            return self.index[piece]
        if self.model == "gpt2":
            return self.index[spell(piece)]
        if self.model == "llama":
            return self.index[piece.replace(" ", "\u2581")]
        raise KeyError(piece)

    def eos(self):
        return next(v for n, _, v in self.fields if n == "tokenizer.ggml.eos_token_id")

    def write(self, gguf, writer):
        writer.add_token_list(self.tokens)
        writer.add_token_types(self.types)
        for name, types, value in self.fields:
            if name in ("tokenizer.ggml.tokens", "tokenizer.ggml.token_type"):
                continue
            vtype = types[0]
            if vtype == gguf.GGUFValueType.ARRAY:
                writer.add_array(name, value)
            else:
                writer.add_key_value(name, value, vtype)


def write_model(gguf, path, vocab, arch, n_layer, n_embd, n_head, n_head_kv, n_ff, tensors_for, ftype="f32",
                context=4096):
    writer = gguf.GGUFWriter(path, arch)
    writer.add_name(os.path.basename(path))
    writer.add_context_length(context)
    writer.add_embedding_length(n_embd)
    writer.add_block_count(n_layer)
    writer.add_feed_forward_length(n_ff)
    writer.add_head_count(n_head)
    writer.add_head_count_kv(n_head_kv)
    writer.add_rope_dimension_count(n_embd // n_head)
    writer.add_rope_freq_base(1000000.0 if arch == "qwen2" else 10000.0)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32 if ftype == "f32" else gguf.LlamaFileType.MOSTLY_F16)
    vocab.write(gguf, writer)
    for name, array in tensors_for():
        if ftype == "f16" and array.ndim == 2:
            array = array.astype(np.float16)
        writer.add_tensor(name, array)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def random_tensors(seed, arch, n_vocab, n_layer, n_embd, n_head, n_head_kv, n_ff):
    head = n_embd // n_head
    kv = head * n_head_kv

    def gen():
        rng = np.random.default_rng(seed)

        def w(rows, cols, scale=0.08):
            return (rng.standard_normal((rows, cols), dtype=np.float32) * scale).astype(np.float32)

        yield "token_embd.weight", w(n_vocab, n_embd, 0.5)
        yield "output_norm.weight", np.ones(n_embd, dtype=np.float32)
        yield "output.weight", w(n_vocab, n_embd, 0.5)
        for i in range(n_layer):
            p = "blk.%d." % i
            yield p + "attn_norm.weight", np.ones(n_embd, dtype=np.float32)
            yield p + "attn_q.weight", w(n_embd, n_embd)
            yield p + "attn_k.weight", w(kv, n_embd)
            yield p + "attn_v.weight", w(kv, n_embd)
            if arch == "qwen2":
                yield p + "attn_q.bias", np.zeros(n_embd, dtype=np.float32)
                yield p + "attn_k.bias", np.zeros(kv, dtype=np.float32)
                yield p + "attn_v.bias", np.zeros(kv, dtype=np.float32)
            yield p + "attn_output.weight", w(n_embd, n_embd)
            yield p + "ffn_norm.weight", np.ones(n_embd, dtype=np.float32)
            yield p + "ffn_gate.weight", w(n_ff, n_embd)
            yield p + "ffn_up.weight", w(n_ff, n_embd)
            yield p + "ffn_down.weight", w(n_embd, n_ff)

    return gen


def scripted_tensors(vocab, script, n_embd=64, n_layer=1, n_ff=64):
    """Weights whose greedy output follows `script`: {token: [(next, logit), ...]}.

    Token k of the script gets embedding e_(k+1); all other tokens share e_0,
    which leads to the end of text.  With zero attention and feed-forward
    outputs the final hidden state is the last token's embedding; after the
    final RMS norm, e_j becomes sqrt(n_embd) e_j, so the logits of the next
    token are sqrt(n_embd) times column j of the output matrix."""
    keys = list(script)
    if len(keys) + 1 > n_embd:
        raise ValueError("script too long for the width")
    n_vocab = len(vocab.tokens)
    scale = 1.0 / np.sqrt(n_embd)

    def gen():
        embd = np.zeros((n_vocab, n_embd), dtype=np.float32)
        embd[:, 0] = 1.0
        out = np.zeros((n_vocab, n_embd), dtype=np.float32)
        out[vocab.eos(), 0] = 10.0 * scale
        for k, key in enumerate(keys):
            tid = vocab.id(key)
            embd[tid, 0] = 0.0
            embd[tid, k + 1] = 1.0
            for nxt, logit in script[key]:
                out[vocab.eos() if nxt is None else vocab.id(nxt), k + 1] = logit * scale
        yield "token_embd.weight", embd
        yield "output_norm.weight", np.ones(n_embd, dtype=np.float32)
        yield "output.weight", out
        zero = np.zeros((n_embd, n_embd), dtype=np.float32)
        for i in range(n_layer):
            p = "blk.%d." % i
            yield p + "attn_norm.weight", np.ones(n_embd, dtype=np.float32)
            yield p + "attn_q.weight", zero
            yield p + "attn_k.weight", zero
            yield p + "attn_v.weight", zero
            yield p + "attn_output.weight", zero
            yield p + "ffn_norm.weight", np.ones(n_embd, dtype=np.float32)
            yield p + "ffn_gate.weight", np.zeros((n_ff, n_embd), dtype=np.float32)
            yield p + "ffn_up.weight", np.zeros((n_ff, n_embd), dtype=np.float32)
            yield p + "ffn_down.weight", np.zeros((n_embd, n_ff), dtype=np.float32)

    return gen


def chain(after, pieces, alternatives=None, end=10.0):
    """A script that, after `after`, writes `pieces` one token each and then
    the end of text; alternatives[i] lists (piece, logit) ranked below the
    i-th piece (logit 10)."""
    script = {}
    prev = after
    for i, piece in enumerate(pieces):
        script[prev] = [(piece, 10.0)] + list((alternatives or {}).get(i, []))
        prev = piece
    script[prev] = [(None, end)]
    return script


# The scripts the tests assert on, by name.  The pieces of one script are
# distinct tokens (a token can lead only one way).
SCRIPTS = {
    # ` a < b` then the end: ` <` is a prefix of stop strings like "<|".
    "compare": lambda fim_mid: chain(fim_mid, [" a", " <", " b"]),
    # The first choice at the cursor is invalid there (`]` after `sum(`);
    # the loop must take the second, from the candidate list.
    # "\u2014" (e2 80 94) one byte token at a time: the first two end inside
    # the character, so the server sends all three bytes with the last.
    "utf8": lambda fim_mid: chain(fim_mid, [b"\xe2", b"\x80", b"\x94"]),
    "detour": lambda fim_mid: {
        fim_mid: [("]", 10.0), ("values", 8.0), ("[", 6.0)],
        "values": [(")", 10.0), (",", 7.0)],
        ")": [(None, 10.0), (" +", 5.0)],
    },
}


def fim_middle(vocab):
    for name in ("<|fim_middle|>", "<fim_middle>"):
        if name in vocab.index:
            return name
    raise KeyError("no fill-in-the-middle token")


def make(gguf, vocab_dir, out, bench):
    os.makedirs(out, exist_ok=True)
    made = {}
    vocabs = {
        "starcoder": Vocab(gguf, os.path.join(vocab_dir, "ggml-vocab-starcoder.gguf")),
        "qwen2": Vocab(gguf, os.path.join(vocab_dir, "ggml-vocab-qwen2.gguf"), QWEN_FIM),
        "qwen2-nofim": Vocab(gguf, os.path.join(vocab_dir, "ggml-vocab-qwen2.gguf")),
    }
    for name, vocab in vocabs.items():
        arch = "qwen2" if name.startswith("qwen2") else "llama"
        path = os.path.join(out, "random-%s.gguf" % name)
        write_model(gguf, path, vocab, arch, 2, 64, 4, 2, 128,
                    random_tensors(7, arch, len(vocab.tokens), 2, 64, 4, 2, 128), ftype="f16")
        made[os.path.basename(path)] = {"vocab": name, "kind": "random"}
    for vname in ("starcoder", "qwen2"):
        vocab = vocabs[vname]
        mid = fim_middle(vocab)
        for sname, make_script in SCRIPTS.items():
            script = make_script(mid)
            path = os.path.join(out, "scripted-%s-%s.gguf" % (sname, vname))
            write_model(gguf, path, vocab, "llama", 1, 64, 4, 4, 64, scripted_tensors(vocab, script))
            made[os.path.basename(path)] = {
                "vocab": vname, "kind": "scripted",
                "script": {repr(k): [[repr(n), l] for n, l in v] for k, v in script.items()},
            }
    if bench:
        vocab = vocabs["qwen2"]
        path = os.path.join(out, "bench-qwen2.5-0.5b-shape-f32.gguf")
        write_model(gguf, path, vocab, "qwen2", 24, 896, 14, 2, 4864,
                    random_tensors(11, "qwen2", len(vocab.tokens), 24, 896, 14, 2, 4864), ftype="f16",
                    context=32768)
        made[os.path.basename(path)] = {"vocab": "qwen2", "kind": "bench"}
    with open(os.path.join(out, "models.json"), "w", encoding="utf-8") as f:
        json.dump(made, f, indent=1, sort_keys=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gguf-py", required=True, help="gguf-py folder of the llama.cpp tree")
    ap.add_argument("--vocab", required=True, help="folder of llama.cpp's ggml-vocab-*.gguf files")
    ap.add_argument("--out", required=True)
    ap.add_argument("--bench", action="store_true", help="also the Qwen2.5-Coder-0.5B-shaped model")
    args = ap.parse_args()
    sys.path.insert(0, args.gguf_py)
    import gguf  # noqa: E402
    make(gguf, args.vocab, args.out, args.bench)


def fingerprint():
    """What the generated files depend on: this script's text."""
    with open(__file__, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


if __name__ == "__main__":
    main()
