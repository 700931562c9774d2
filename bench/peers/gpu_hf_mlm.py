# Contender of the device check's throughput section: Hugging Face RobertaForMaskedLM training steps
# (AdamW; f32, or bf16 autocast for bf16-mixed), eager or torch.compile, on the GPU (--device cuda) or the
# CPU (--device cpu, the check's CI run). The vocabulary head runs on every position, as HF computes it;
# 15% of positions are labelled. Speaks bench/peers/gpu_worker.py's protocol on stdin/stdout.
# Usage: python3 gpu_hf_mlm.py --preset roberta-base|mlm-tiny --vocab 32000 --seq 128
#                              --precision 32|bf16-mixed --mode eager|compile [--device cuda|cpu] [--threads N]
import torch
from transformers import RobertaConfig, RobertaForMaskedLM
import gpu_torch_common as common
from gpu_worker import serve

SHAPES = {"roberta-base": (768, 12, 12, 3072), "mlm-tiny": (32, 2, 2, 64)}  # hidden, layers, heads, intermediate

a, dev = common.parse_contender_args(SHAPES, "roberta-base", 32000)
H, L, A, I = SHAPES[a.preset]
V, T = a.vocab, a.seq
# Positions run from pad_token_id + 1 to pad_token_id + T: room for them.
cfg = RobertaConfig(vocab_size=V, hidden_size=H, num_hidden_layers=L, num_attention_heads=A, intermediate_size=I,
                    max_position_embeddings=T + 4, type_vocab_size=1, pad_token_id=3, bos_token_id=0, eos_token_id=1)
torch.manual_seed(0)
model = RobertaForMaskedLM(cfg)


def make_batch(b):
    g = torch.Generator().manual_seed(b)
    ids = torch.randint(5, V, (b, T), generator=g)
    labels = torch.where(torch.rand(b, T, generator=g) < 0.15, ids, torch.full_like(ids, -100))
    return ids.to(dev), torch.ones(b, T, dtype=torch.long, device=dev), labels.to(dev)


def loss_fn(model, ids, mask, labels):
    return model(input_ids=ids, attention_mask=mask, labels=labels).loss


serve(f"torch-{a.mode}", common.session_maker(model, loss_fn, make_batch, dev, a.precision, a.mode), T,
      sum(x.numel() for x in model.parameters()), common.peak_bytes(dev))
