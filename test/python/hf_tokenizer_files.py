"""tokenizer.json files of every model type and of the pipelines real models use, made by `tokenizers`.

Reads a JSON job on stdin: {"corpus": TEXT_FILE, "out": DIR} and trains, on the corpus, one tokenizer
per layout below with `tokenizers`' own trainers, set up the way the named model family's tokenizer.json
is (GPT-2, RoBERTa, Llama 3 and SmolLM: byte-level BPE; Llama 2: SentencePiece-style BPE with byte
fallback; a cased WordPiece; WordLevel; Unigram), saving each as DIR/<name>.json. Prints one JSON line:
{name: path}.
"""

import json
import os
import sys

from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

job = json.load(sys.stdin)
corpus = [job["corpus"]]
out = job["out"]
os.makedirs(out, exist_ok=True)
made = {}

LLAMA3_PATTERN = (
    r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
)


def save(name, tok):
    path = os.path.join(out, f"{name}.json")
    tok.save(path)
    made[name] = path


# GPT-2: byte-level BPE, no prefix space, <|endoftext|>, offsets trimmed by the ByteLevel post-processor.
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
tok.post_processor = processors.ByteLevel(trim_offsets=True)
tok.train(corpus, trainers.BpeTrainer(vocab_size=1200, special_tokens=["<|endoftext|>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
save("gpt2-style", tok)

# RoBERTa: byte-level BPE with a prefix space, <s> A </s> </s> B </s>, <mask> taking the space before it.
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=True)
tok.decoder = decoders.ByteLevel()
tok.train(
    corpus,
    trainers.BpeTrainer(
        vocab_size=1200, special_tokens=["<s>", "<pad>", "</s>", "<unk>"], initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    ),
)
tok.add_special_tokens([AddedToken("<mask>", lstrip=True)])
tok.post_processor = processors.RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")))
save("roberta-style", tok)

# Llama 3 / SmolLM: Split by the Llama 3 regex, ByteLevel without its own regex, ignore_merges,
# ByteLevel (no trimming) then the bos template.
tok = Tokenizer(models.BPE(ignore_merges=True))
tok.pre_tokenizer = pre_tokenizers.Sequence(
    [
        pre_tokenizers.Split(Regex(LLAMA3_PATTERN), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False),
    ]
)
tok.decoder = decoders.ByteLevel()
tok.train(
    corpus,
    trainers.BpeTrainer(
        vocab_size=1500,
        special_tokens=["<|begin_of_text|>", "<|end_of_text|>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    ),
)
bos = tok.token_to_id("<|begin_of_text|>")
tok.post_processor = processors.Sequence(
    [
        processors.ByteLevel(trim_offsets=False),
        processors.TemplateProcessing(
            single="<|begin_of_text|> $A",
            pair="<|begin_of_text|> $A <|begin_of_text|>:1 $B:1",
            special_tokens=[("<|begin_of_text|>", bos)],
        ),
    ]
)
save("llama3-style", tok)

# Llama 2: '▁' for spaces and before the text, BPE over characters with byte fallback (a small
# alphabet, so rarer characters fall back to <0xXX>), fused unknowns, the SentencePiece decoder chain.
tok = Tokenizer(models.BPE(unk_token="<unk>", fuse_unk=True, byte_fallback=True))
tok.normalizer = normalizers.Sequence([normalizers.Prepend("▁"), normalizers.Replace(" ", "▁")])
byte_tokens = [f"<0x{b:02X}>" for b in range(256)]
tok.train(corpus, trainers.BpeTrainer(vocab_size=1500, special_tokens=["<unk>", "<s>", "</s>"], limit_alphabet=70))
spec = json.loads(tok.to_str())
vocab = spec["model"]["vocab"]
for t in byte_tokens:
    vocab.setdefault(t, len(vocab))
tok = Tokenizer.from_str(json.dumps(spec))
tok.decoder = decoders.Sequence([decoders.Replace("▁", " "), decoders.ByteFallback(), decoders.Fuse(), decoders.Strip(" ", 1, 0)])
bos = tok.token_to_id("<s>")
tok.post_processor = processors.TemplateProcessing(single="<s> $A", pair="<s> $A <s>:1 $B:1", special_tokens=[("<s>", bos)])
save("llama2-style", tok)

# A cased WordPiece: NFD, StripAccents, whitespace and single digits, BERT's template.
tok = Tokenizer(models.WordPiece(unk_token="[UNK]", max_input_chars_per_word=20))
tok.normalizer = normalizers.Sequence([normalizers.NFD(), normalizers.StripAccents()])
tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Digits(individual_digits=True)])
tok.decoder = decoders.WordPiece()
tok.train(corpus, trainers.WordPieceTrainer(vocab_size=1500, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]))
tok.post_processor = processors.BertProcessing(("[SEP]", tok.token_to_id("[SEP]")), ("[CLS]", tok.token_to_id("[CLS]")))
save("wordpiece-cased", tok)

# WordLevel over lowercased NFKC words and punctuation, truncated from the left, padded to multiples of 8.
tok = Tokenizer(models.WordLevel(unk_token="<unk>"))
tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Lowercase()])
tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
tok.train(corpus, trainers.WordLevelTrainer(vocab_size=2000, special_tokens=["<pad>", "<unk>", "<cls>", "<sep>"]))
cls, sep = tok.token_to_id("<cls>"), tok.token_to_id("<sep>")
tok.post_processor = processors.TemplateProcessing(
    single="<cls> $A <sep>", pair="<cls> $A <sep> $B:1 <sep>:1", special_tokens=[("<cls>", cls), ("<sep>", sep)]
)
tok.enable_truncation(24, strategy="longest_first", direction="left")
tok.enable_padding(pad_id=0, pad_token="<pad>", pad_to_multiple_of=8)
save("wordlevel", tok)

# Unigram behind Metaspace (prepend_scheme "first") and a Replace normalizer, with byte fallback.
tok = Tokenizer(models.Unigram())
tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(r"\s+"), " ")])
tok.pre_tokenizer = pre_tokenizers.Metaspace(prepend_scheme="first")
tok.decoder = decoders.Metaspace(prepend_scheme="first")
tok.train(corpus, trainers.UnigramTrainer(vocab_size=800, special_tokens=["<unk>", "<s>", "</s>"], unk_token="<unk>"))
tok.post_processor = processors.TemplateProcessing(
    single="$A </s>", pair="$A </s> $B:1 </s>:1", special_tokens=[("</s>", tok.token_to_id("</s>"))]
)
save("unigram-metaspace", tok)

print(json.dumps(made))
