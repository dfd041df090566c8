"""Build tiny, randomly initialised Qwen2-VL / Qwen2.5-VL / LLaVA-OneVision checkpoints offline (seconds on CPU).

They exercise lmms-eval's real model code paths: ``qwen2_vl`` (simple) and ``qwen2_5_vl`` (chat), and our
``first_token_prob`` (Qwen2-VL and LLaVA-OneVision-hf). Their answers are noise, so tests on them assert
structure, or compare against an independent forward pass of the same checkpoint, never fixed values.
"""

from __future__ import annotations

from pathlib import Path

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
            "<|image_pad|>", "<|video_pad|>"]  # fmt: skip

CHAT_TEMPLATE = (
    "{% for message in messages %}"
    "{% if loop.first and message['role'] != 'system' %}<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n"
    "{% endif %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}<|im_end|>\n"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' or 'image' in content or 'image_url' in content %}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif content['type'] == 'video' or 'video' in content %}<|vision_start|><|video_pad|><|vision_end|>"
    "{% elif 'text' in content %}{{ content['text'] }}{% endif %}"
    "{% endfor %}<|im_end|>\n{% endif %}{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)

CORPUS = [
    "Does the red square move from left to right? Please output Yes or No.",
    "Which square appears first? Option A: The red square. Option B: The blue square. Please output A or B.",
    "Yes No A B yes no the a video shows a person walking quickly slowly up down left right",
    "You are a helpful assistant. system user assistant",
] * 20


def _tokenizer():
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=400, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
    )
    tok.train_from_iterator(CORPUS, trainer)
    hf_tok = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>")
    hf_tok.chat_template = CHAT_TEMPLATE
    return hf_tok


def build(out: Path, version: str = "2") -> Path:
    """Write a tiny Qwen2-VL (``version="2"``) or Qwen2.5-VL (``"2.5"``) checkpoint to ``out``."""
    from transformers.models.qwen2_vl.image_processing_qwen2_vl import Qwen2VLImageProcessor
    from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor

    hf_tok = _tokenizer()
    pix = {"min_pixels": 28 * 28 * 4, "max_pixels": 28 * 28 * 16}
    ids = {t: hf_tok.convert_tokens_to_ids(t) for t in SPECIALS}
    text_config = {
        "vocab_size": len(hf_tok), "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "max_position_embeddings": 4096,
        "rope_parameters": {"rope_type": "default", "rope_theta": 1e4, "mrope_section": [2, 3, 3]},
        "bos_token_id": ids["<|endoftext|>"], "eos_token_id": ids["<|im_end|>"], "pad_token_id": ids["<|endoftext|>"],
    }  # fmt: skip
    common = {
        "image_token_id": ids["<|image_pad|>"], "video_token_id": ids["<|video_pad|>"],
        "vision_start_token_id": ids["<|vision_start|>"], "vision_end_token_id": ids["<|vision_end|>"],
        "tie_word_embeddings": True,
    }  # fmt: skip
    if version == "2":
        from transformers import Qwen2VLConfig, Qwen2VLForConditionalGeneration, Qwen2VLProcessor

        vision = {"depth": 1, "embed_dim": 32, "hidden_size": 64, "num_heads": 2, "mlp_ratio": 2,
                  "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2}  # fmt: skip
        config = Qwen2VLConfig(text_config=text_config, vision_config=vision, **common)
        model_cls, processor_cls = Qwen2VLForConditionalGeneration, Qwen2VLProcessor
    else:
        from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration, Qwen2_5_VLProcessor

        vision = {"depth": 1, "hidden_size": 32, "intermediate_size": 64, "out_hidden_size": 64, "num_heads": 2,
                  "window_size": 56, "fullatt_block_indexes": [0]}  # fmt: skip
        config = Qwen2_5_VLConfig(text_config=text_config, vision_config=vision, **common)
        model_cls, processor_cls = Qwen2_5_VLForConditionalGeneration, Qwen2_5_VLProcessor
    processor = processor_cls(
        image_processor=Qwen2VLImageProcessor(**pix), tokenizer=hf_tok,
        video_processor=Qwen2VLVideoProcessor(**pix), chat_template=CHAT_TEMPLATE,
    )  # fmt: skip
    return _save(model_cls, config, processor, hf_tok, out)


def _save(model_cls, config, processor, tokenizer, out: Path) -> Path:
    """A randomly initialised (seed 0) model of ``config`` saved with its processor and tokenizer in ``out``."""
    import torch

    torch.manual_seed(0)
    model = model_cls(config).eval()
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    processor.save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


LLAVA_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for content in message['content'] %}"
    "{% if content['type'] == 'image' %}<image>\n{% elif content['type'] == 'video' %}<video>\n"
    "{% elif content['type'] == 'text' %}{{ content['text'] }}{% endif %}{% endfor %}{% endif %}<|im_end|>\n"
    "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def build_llava_onevision(out: Path) -> Path:
    """Write a tiny LLaVA-OneVision-hf checkpoint (SigLIP tower, Qwen2 language model) to ``out``."""
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
    )

    hf_tok = _tokenizer()
    hf_tok.add_special_tokens({"additional_special_tokens": ["<image>", "<video>"]})
    hf_tok.chat_template = LLAVA_TEMPLATE
    ids = {t: hf_tok.convert_tokens_to_ids(t) for t in (*SPECIALS, "<image>", "<video>")}
    size, patch = 28, 14  # 2x2 patches per frame, pooled to 1 token (+1 newline per video)
    config = LlavaOnevisionConfig(
        vision_config={"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64,
                       "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": size, "patch_size": patch},
        text_config={"model_type": "qwen2", "vocab_size": len(hf_tok), "hidden_size": 64, "intermediate_size": 128,
                     "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
                     "max_position_embeddings": 4096, "bos_token_id": ids["<|endoftext|>"],
                     "eos_token_id": ids["<|im_end|>"], "pad_token_id": ids["<|endoftext|>"]},
        image_token_index=ids["<image>"], video_token_index=ids["<video>"],
        vision_feature_select_strategy="full", vision_feature_layer=-1,
        image_grid_pinpoints=[[size, size]], tie_word_embeddings=True,
    )  # fmt: skip
    square = {"height": size, "width": size}
    image_processor = LlavaOnevisionImageProcessor(size=square, crop_size=square, image_grid_pinpoints=[[size, size]])
    video_processor = LlavaOnevisionVideoProcessor(size=square)
    processor = LlavaOnevisionProcessor(
        image_processor=image_processor, tokenizer=hf_tok, video_processor=video_processor,
        num_image_tokens=(size // patch) ** 2, vision_feature_select_strategy="full", chat_template=LLAVA_TEMPLATE,
    )  # fmt: skip
    return _save(LlavaOnevisionForConditionalGeneration, config, processor, hf_tok, out)
