"""A tiny random-weight Qwen2 built offline: the real Qwen tokenizer and chat template on a
2-layer model (hidden 128, 2 heads of head_dim 64: CPU attention rejects 16), ~40 MB, seconds.

For engine and cache tests and benchmarks, where what matters is the tokens and the KV blocks,
not the answers. Fixed seed: the same weights every time.
"""

from __future__ import annotations

from pathlib import Path


def build_tiny_model(folder: Path | str) -> Path:
    """Write the model to `folder` (reused when already there) and return it."""
    folder = Path(folder)
    if (folder / "config.json").exists() and (folder / "tokenizer_config.json").exists():
        return folder
    import torch
    from transformers import AutoConfig, AutoTokenizer, Qwen2Config, Qwen2ForCausalLM

    from glm_dspy.lm.models import fetch_model

    default = fetch_model(progress=False)
    tokenizer, real = AutoTokenizer.from_pretrained(default), AutoConfig.from_pretrained(default)
    config = Qwen2Config(vocab_size=real.vocab_size, hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=2, intermediate_size=256, max_position_embeddings=8192,
                         bos_token_id=real.bos_token_id, eos_token_id=real.eos_token_id, tie_word_embeddings=True)
    torch.manual_seed(0)
    partial = folder.with_name(folder.name + ".partial")
    Qwen2ForCausalLM(config).to(torch.bfloat16).save_pretrained(partial)
    tokenizer.save_pretrained(partial)
    partial.rename(folder)
    return folder
