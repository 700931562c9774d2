# Contender of the device check's throughput section: Hugging Face LlamaForCausalLM training steps (AdamW;
# f32, or bf16 autocast for bf16-mixed), eager or torch.compile, on the GPU (--device cuda) or the CPU
# (--device cpu). Shapes of Kiln's causal presets (src/models/causal-config.ts): smollm-135m (SmolLM-135M's:
# width 576, 30 layers, 9 query and 3 key/value heads, SwiGLU of 1536, tied embeddings, rope theta 10000)
# and llama-tiny. The next-token loss over every position. Speaks bench/peers/gpu_worker.py's protocol.
# Usage: python3 gpu_hf_llama.py --preset smollm-135m|llama-tiny --vocab 49152 --seq 128
#                                --precision 32|bf16-mixed --mode eager|compile [--device cuda|cpu] [--threads N]
import torch
from transformers import LlamaConfig, LlamaForCausalLM
import gpu_torch_common as common
from gpu_worker import serve

SHAPES = {"smollm-135m": (576, 30, 9, 3, 1536), "llama-tiny": (16, 2, 4, 2, 32)}  # hidden, layers, heads, kv heads, intermediate

a, dev = common.parse_contender_args(SHAPES, "smollm-135m", 49152)
H, L, A, KV, I = SHAPES[a.preset]
V, T = a.vocab, a.seq
cfg = LlamaConfig(vocab_size=V, hidden_size=H, intermediate_size=I, num_hidden_layers=L, num_attention_heads=A,
                  num_key_value_heads=KV, head_dim=H // A, hidden_act="silu", max_position_embeddings=T, rms_norm_eps=1e-5,
                  rope_parameters={"rope_type": "default", "rope_theta": 10000.0}, tie_word_embeddings=True,
                  attention_bias=False, mlp_bias=False, attention_dropout=0.0, initializer_range=0.02,
                  bos_token_id=0, eos_token_id=1, pad_token_id=3)
torch.manual_seed(0)
model = LlamaForCausalLM(cfg)


def make_batch(b):
    ids = torch.randint(5, V, (b, T), generator=torch.Generator().manual_seed(b)).to(dev)
    return ids, torch.ones(b, T, dtype=torch.long, device=dev)


def loss_fn(model, ids, mask):
    return model(input_ids=ids, attention_mask=mask, labels=ids).loss


serve(f"torch-{a.mode}", common.session_maker(model, loss_fn, make_batch, dev, a.precision, a.mode), T,
      sum(x.numel() for x in model.parameters()), common.peak_bytes(dev))
