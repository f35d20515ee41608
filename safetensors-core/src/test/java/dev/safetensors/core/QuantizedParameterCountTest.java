package dev.safetensors.core;

import dev.safetensors.DType;
import dev.safetensors.fixtures.SafetensorsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import dev.safetensors.core.internal.index.TargetPattern;

/**
 * Parameter counts of small generated quantized checkpoints, each expected count derived by hand below from the
 * scheme's packing rule. Every model is one quantized linear layer of in = 64, out = 32 (2,048 weights), a bias of
 * 32 and an unquantized lm_head of 100 x 64 (6,400), so the expected total is always 2,048 + 32 + 6,400 = 8,480.
 */
class QuantizedParameterCountTest {
    @TempDir
    Path dir;

    private CheckpointMetadata metadata(SafetensorsFixture model, String config) throws Exception {
        Files.write(dir.resolve("model.safetensors"), model.build());
        if (config != null) {
            Files.writeString(dir.resolve("config.json"), config);
        }
        return CheckpointMetadata.read(dir.resolve("model.safetensors").toString(), null);
    }

    private static SafetensorsFixture plainParts(SafetensorsFixture f) {
        return f.tensor("model.layers.0.proj.bias", "F16", 32).tensor("lm_head.weight", "F16", 100, 64);
    }

    @Test
    void gptq4BitPacksEightWeightsPerInt32() throws Exception {
        // GPTQ 4-bit, group size 64: qweight I32 [in / (32/4), out] = [8, 32] = 256 elements, x 32/4 = 8 -> 2,048.
        // qzeros I32 [in/group, out/8] = [1, 4], scales F16 [1, 32], g_idx I32 [64]: bookkeeping, counted 0.
        // I32: 2,048; F16: bias 32 + lm_head 6,400 = 6,432.
        CheckpointMetadata m = metadata(plainParts(SafetensorsFixture.create()
                .tensor("model.layers.0.proj.qweight", "I32", 8, 32)
                .tensor("model.layers.0.proj.qzeros", "I32", 1, 4)
                .tensor("model.layers.0.proj.scales", "F16", 1, 32)
                .tensor("model.layers.0.proj.g_idx", "I32", 64)),
                "{\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":4,\"group_size\":64}}");
        assertEquals(Map.of(DType.I32, 2048L, DType.F16, 6432L), m.parameters());
        assertEquals(8480, m.totalParameters());
        assertTrue(m.fromConfig());
        assertEquals("derived from config.json quantization_config (gptq, 4 bits)", m.counting());
    }

    @Test
    void awq4BitPacksAlongTheOutputDimension() throws Exception {
        // AWQ 4-bit: qweight I32 [in, out / 8] = [64, 4] = 256 elements, x 8 -> 2,048; qzeros I32 [1, 4] and
        // scales F16 [1, 32] are bookkeeping. I32: 2,048; F16: 6,432.
        CheckpointMetadata m = metadata(plainParts(SafetensorsFixture.create()
                .tensor("model.layers.0.proj.qweight", "I32", 64, 4)
                .tensor("model.layers.0.proj.qzeros", "I32", 1, 4)
                .tensor("model.layers.0.proj.scales", "F16", 1, 32)),
                "{\"quantization_config\":{\"quant_method\":\"awq\",\"bits\":4,\"modules_to_not_convert\":[\"lm_head\"]}}");
        assertEquals(Map.of(DType.I32, 2048L, DType.F16, 6432L), m.parameters());
    }

    @Test
    void bitsandbytes4BitPacksTwoWeightsPerByte() throws Exception {
        // bitsandbytes NF4: weight U8 [in*out/2, 1] = [1024, 1] = 1,024 bytes, x 2 -> 2,048. absmax F32 [2048/64 = 32],
        // quant_map F32 [16], nested_absmax F32 [1], nested_quant_map F32 [256] and
        // weight.quant_state.bitsandbytes__nf4 U8 [64] are the quantization state: 0. U8: 2,048; F16: 6,432.
        CheckpointMetadata m = metadata(plainParts(SafetensorsFixture.create()
                .tensor("model.layers.0.proj.weight", "U8", 1024, 1)
                .tensor("model.layers.0.proj.weight.absmax", "F32", 32)
                .tensor("model.layers.0.proj.weight.quant_map", "F32", 16)
                .tensor("model.layers.0.proj.weight.nested_absmax", "F32", 1)
                .tensor("model.layers.0.proj.weight.nested_quant_map", "F32", 256)
                .tensor("model.layers.0.proj.weight.quant_state.bitsandbytes__nf4", "U8", 64)),
                "{\"quantization_config\":{\"quant_method\":\"bitsandbytes\",\"load_in_4bit\":true,"
                        + "\"llm_int8_skip_modules\":[\"lm_head\"]}}");
        assertEquals(Map.of(DType.U8, 2048L, DType.F16, 6432L), m.parameters());
        assertEquals("derived from config.json quantization_config (bitsandbytes, 4-bit)", m.counting());
    }

    @Test
    void mxfp4BlocksHoldTwoWeightsPerByteAndScalesCountNothing() throws Exception {
        // gpt-oss MXFP4, 2 experts of out = 16, in = 64: gate_up_proj_blocks U8 [experts 2, out 16, in/32 = 2 blocks,
        // 16 bytes per block of 32 values] = 1,024 bytes, x 2 -> 2,048 = 2 x 16 x 64.
        // gate_up_proj_scales U8 [2, 16, 2] (one E8M0 exponent per block): 0. gate_up_proj_bias BF16 [2, 16]: 32.
        // U8: 2,048; BF16: 32; F16: lm_head 6,400 (the proj bias is replaced by the expert bias here).
        CheckpointMetadata m = metadata(SafetensorsFixture.create()
                .tensor("model.layers.0.mlp.experts.gate_up_proj_blocks", "U8", 2, 16, 2, 16)
                .tensor("model.layers.0.mlp.experts.gate_up_proj_scales", "U8", 2, 16, 2)
                .tensor("model.layers.0.mlp.experts.gate_up_proj_bias", "BF16", 2, 16)
                .tensor("lm_head.weight", "F16", 100, 64),
                "{\"quantization_config\":{\"quant_method\":\"mxfp4\",\"modules_to_not_convert\":"
                        + "[\"model.layers.*.self_attn\",\"lm_head\"]}}");
        assertEquals(Map.of(DType.U8, 2048L, DType.BF16, 32L, DType.F16, 6400L), m.parameters());
        assertEquals(8480, m.totalParameters());
    }

    @Test
    void compressedTensorsPackQuantizedUsesItsGroupsBitWidth() throws Exception {
        // compressed-tensors pack-quantized, num_bits 4: weight_packed I32 [out 32, in/8 = 8] = 256, x 32/4 = 8 ->
        // 2,048. weight_scale BF16 [32, 1] and weight_shape I32 [2] are bookkeeping: 0. lm_head is in "ignore".
        // A second group at num_bits 8 targets "re:.*down_proj$": down_proj weight_packed I32 [16, 16] = 256, x 4 ->
        // 1,024. A class-name target ("Linear") cannot be resolved from tensor names, so proj, matching no group by
        // name, takes the first group's num_bits (4), as huggingface.js does. I32: 2,048 + 1,024 = 3,072; F16: 6,432.
        CheckpointMetadata m = metadata(plainParts(SafetensorsFixture.create()
                .tensor("model.layers.0.proj.weight_packed", "I32", 32, 8)
                .tensor("model.layers.0.proj.weight_scale", "BF16", 32, 1)
                .tensor("model.layers.0.proj.weight_shape", "I32", 2)
                .tensor("model.layers.0.down_proj.weight_packed", "I32", 16, 16)),
                "{\"quantization_config\":{\"quant_method\":\"compressed-tensors\",\"format\":\"pack-quantized\","
                        + "\"ignore\":[\"lm_head\"],\"config_groups\":{"
                        + "\"group_0\":{\"targets\":[\"Linear\"],\"weights\":{\"num_bits\":4}},"
                        + "\"group_1\":{\"targets\":[\"re:.*down_proj$\"],\"weights\":{\"num_bits\":8}}}}}");
        assertEquals(Map.of(DType.I32, 3072L, DType.F16, 6432L), m.parameters());
    }

    @Test
    void withoutAConfigEveryElementCountsAndTheOutputSaysSo() throws Exception {
        // no config.json: the GPTQ layout above counts its stored elements: I32 256 + 4 + 64 = 324, F16 32 + 6,432.
        CheckpointMetadata m = metadata(plainParts(SafetensorsFixture.create()
                .tensor("model.layers.0.proj.qweight", "I32", 8, 32)
                .tensor("model.layers.0.proj.qzeros", "I32", 1, 4)
                .tensor("model.layers.0.proj.scales", "F16", 1, 32)
                .tensor("model.layers.0.proj.g_idx", "I32", 64)), null);
        assertEquals(Map.of(DType.I32, 324L, DType.F16, 6464L), m.parameters());
        assertFalse(m.fromConfig());
        assertEquals("stored elements: no config.json was found beside the checkpoint", m.counting());
    }

    @Test
    void aConfigWithoutQuantizationOrUnreadableCountsElements() throws Exception {
        CheckpointMetadata plain = metadata(plainParts(SafetensorsFixture.create()), "{\"model_type\":\"llama\"}");
        assertEquals(6432, plain.totalParameters());
        assertEquals("stored elements: config.json declares no quantization_config", plain.counting());
        CheckpointMetadata broken = metadata(plainParts(SafetensorsFixture.create()), "{\"a\":1,\"a\":2}");
        assertFalse(broken.fromConfig());
        assertTrue(broken.counting().startsWith("stored elements: config.json could not be used"), broken.counting());
    }

    @Test
    void hostileTargetPatternsMatchNothingRatherThanRunARegex() {
        assertTrue(TargetPattern.matches("re:.*down_proj$", "model.layers.0.down_proj"));
        assertFalse(TargetPattern.matches("re:(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!"));
        assertTrue(TargetPattern.glob("model.layers.*.self_attn", "model.layers.12.self_attn"));
        assertFalse(TargetPattern.glob("a*b*c", "acb"));
    }
}
