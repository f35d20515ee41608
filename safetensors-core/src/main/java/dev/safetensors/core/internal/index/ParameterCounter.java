package dev.safetensors.core.internal.index;

import dev.safetensors.DType;
import dev.safetensors.TensorInfo;

import java.util.List;
import java.util.Map;

/**
 * Counts a tensor's parameters as the model has them, following huggingface.js ({@code parseSafetensorsMetadata}'s
 * {@code computeNumOfParamsByDtype}): with a {@link QuantizationConfig}, packed weights count the values they pack
 * (a GPTQ/AWQ {@code qweight} holds {@code 32 / bits} values per I32, a bitsandbytes 4-bit or MXFP4
 * {@code _blocks} weight two per U8, a compressed-tensors {@code pack-quantized} weight
 * {@code container bits / num_bits} per element), and quantization bookkeeping (scales, zero points,
 * {@code g_idx}, {@code weight_shape}, bitsandbytes' {@code absmax} and quant state, MXFP4 {@code _scales}, any
 * F8_E8M0 tensor) counts nothing; scalars count nothing, as there. Without a config every tensor counts its elements.
 * Immutable and thread-safe.
 */
public final class ParameterCounter {
    private static final List<String> AUXILIARY_SUFFIXES = List.of("weight_scale", "weight_scale_inv",
            "weight_scale_2", "weight_global_scale", "weight_zero_point", "input_scale", "input_global_scale",
            "input_zero_point", "zero_point", "weight_shape", "weight_g_idx");
    private static final List<String> GPTQ_AUXILIARY = List.of("qzeros", "g_idx", "scales");
    private static final List<String> BNB_AUXILIARY = List.of("absmax", "quant_map", "nested_absmax",
            "nested_quant_map");
    private static final List<Map.Entry<String, Integer>> FORMAT_BITS = List.of(Map.entry("nvfp4", 4),
            Map.entry("mxfp4", 4), Map.entry("fp4", 4), Map.entry("int4", 4), Map.entry("uint4", 4),
            Map.entry("nf4", 4), Map.entry("int2", 2));

    private final QuantizationConfig config;

    /** @param config the model's quantization config, or {@code null} to count elements */
    public ParameterCounter(QuantizationConfig config) {
        this.config = config;
    }

    /**
     * @param t a tensor
     * @return the parameters it holds
     */
    public long count(TensorInfo t) {
        if (config == null) {
            return t.elementCount();
        }
        if (t.rank() == 0 || skipped(t.name(), t.dtype())) {
            return 0;
        }
        long elements = t.elementCount();
        int[] ratio = packing(t.name(), t.dtype());
        if (ratio[0] == ratio[1]) {
            return elements;
        }
        // a ratio of small integers: exact while it fits, which a real tensor always does
        long high = Math.multiplyHigh(elements, ratio[0]);
        if (high == 0 && elements * ratio[0] >= 0) {
            return (elements * ratio[0] + ratio[1] / 2) / ratio[1];
        }
        return Math.round((double) elements * ratio[0] / ratio[1]);
    }

    private boolean skipped(String name, DType dtype) {
        if (dtype == DType.F8_E8M0) {
            return true;
        }
        String suffix = suffix(name);
        if (AUXILIARY_SUFFIXES.contains(suffix)) {
            return true;
        }
        switch (config.method()) {
            case "mxfp4":
                return dtype == DType.U8 && suffix.endsWith("_scales");
            case "bitsandbytes":
                return BNB_AUXILIARY.contains(suffix) || suffix.startsWith("bitsandbytes__");
            case "gptq", "awq":
                return quantized(name) && !suffix.equals("qweight") && GPTQ_AUXILIARY.contains(suffix);
            default:
                return false;
        }
    }

    /** @return {values, elements}: how many parameters each stored element holds, as a ratio */
    private int[] packing(String name, DType dtype) {
        int[] one = {1, 1};
        if (!quantized(name)) {
            return one;
        }
        int bits = config.bits();
        switch (config.method()) {
            case "mxfp4":
                return dtype == DType.U8 && name.contains("_blocks") ? new int[] {2, 1} : one;
            case "gptq", "awq":
                if (suffix(name).equals("qweight")) {
                    return new int[] {Math.max(1, 32 / (bits > 0 ? bits : 4)), 1};
                }
                if (dtype == DType.U8 && (bits == 4 || bits == 2)) {
                    return new int[] {8 / bits, 1};
                }
                return one;
            case "compressed-tensors":
                return compressedTensors(name, dtype);
            case "bitsandbytes":
                return config.loadIn4bit() && dtype == DType.U8 ? new int[] {2, 1} : one;
            default:
                return dtype == DType.U8 && (config.loadIn4bit() || bits == 4) ? new int[] {2, 1} : one;
        }
    }

    private int[] compressedTensors(String name, DType dtype) {
        int container = switch (dtype) {
            case U8, I8 -> 8;
            case U16, I16 -> 16;
            case U32, I32 -> 32;
            default -> 0;
        };
        if (container == 0) {
            return new int[] {1, 1};
        }
        String module = module(name);
        QuantizationConfig.Group group = null;
        for (QuantizationConfig.Group g : config.groups()) {
            if (g.targets().stream().anyMatch(target -> TargetPattern.matches(target, module))) {
                group = g;
                break;
            }
        }
        String format = group != null && !group.format().isEmpty() ? group.format() : config.format();
        if (!format.endsWith("pack-quantized")) {
            return new int[] {1, 1};
        }
        int numBits = group != null ? group.numBits() : 0;
        for (QuantizationConfig.Group g : config.groups()) {
            numBits = numBits > 0 ? numBits : g.numBits();
        }
        if (numBits == 0) {
            numBits = FORMAT_BITS.stream().filter(e -> format.contains(e.getKey())).map(Map.Entry::getValue)
                    .findFirst().orElse(4);
        }
        return numBits >= container ? new int[] {1, 1} : new int[] {container, numBits};
    }

    /** Whether the tensor is quantized at all: not excluded by {@code ignore} or {@code modules_to_not_convert}. */
    private boolean quantized(String name) {
        String module = module(name);
        if (config.ignore().stream().anyMatch(target -> TargetPattern.matches(target, module))) {
            return false;
        }
        return config.modulesToNotConvert().stream().noneMatch(pattern -> pattern.contains("*")
                ? TargetPattern.glob(pattern, name) : name.contains(pattern));
    }

    private static String module(String name) {
        int i = name.lastIndexOf(".weight");
        return i < 0 ? name : name.substring(0, i);
    }

    private static String suffix(String name) {
        return name.substring(name.lastIndexOf('.') + 1);
    }
}
