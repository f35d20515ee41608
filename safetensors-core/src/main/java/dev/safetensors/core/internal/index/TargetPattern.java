package dev.safetensors.core.internal.index;

/**
 * The module patterns of quantization configs, matched without regular expressions (a {@code config.json} is
 * untrusted input: no ReDoS, no syntax errors), as huggingface.js matches them: {@code *} globs, and
 * compressed-tensors targets that are exact module names or {@code re:} patterns limited to {@code .*},
 * {@code ^}, {@code $} and {@code \.}; a target using any other regex syntax matches nothing.
 */
public final class TargetPattern {
    private TargetPattern() {
    }

    /**
     * @param target a compressed-tensors target
     * @param module a module name (the tensor name without {@code .weight...})
     * @return whether the target names the module
     */
    public static boolean matches(String target, String module) {
        if (!target.startsWith("re:")) {
            return target.equals(module);
        }
        String p = target.substring(3);
        if (p.startsWith("^")) {
            p = p.substring(1);
        }
        if (p.endsWith("$")) {
            p = p.substring(0, p.length() - 1);
        } else {
            p += ".*";
        }
        String glob = p.replace(".*", "*").replace("\\.", ".");
        for (char c : glob.toCharArray()) {
            if ("\\+?()[]{}|^$".indexOf(c) >= 0) {
                return false;
            }
        }
        return glob(glob, module);
    }

    /**
     * @param pattern literal text with {@code *} wildcards
     * @param s       the text to match, whole
     * @return whether it matches
     */
    public static boolean glob(String pattern, String s) {
        String[] parts = pattern.split("\\*", -1);
        if (parts.length == 1) {
            return pattern.equals(s);
        }
        if (!s.startsWith(parts[0])) {
            return false;
        }
        int pos = parts[0].length();
        String last = parts[parts.length - 1];
        if (!s.endsWith(last)) {
            return false;
        }
        int end = s.length() - last.length();
        for (int i = 1; i < parts.length - 1; i++) {
            int at = s.indexOf(parts[i], pos);
            if (at < 0 || at + parts[i].length() > end) {
                return false;
            }
            pos = at + parts[i].length();
        }
        return pos <= end;
    }
}
