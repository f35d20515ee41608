package dev.safetensors.core;

import org.junit.jupiter.api.Test;

import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.List;
import java.util.Random;
import java.util.regex.PatternSyntaxException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Glob matching: the JDK's glob syntax, in steps bounded by the name's length times the pattern's. */
class NameGlobTest {

    @Test
    void manyStarsAgainstALongNameTakeLinearSteps() {
        NameGlob glob = NameGlob.compile("*-*-*-*-*.safetensors");
        String dashes = "-".repeat(244);
        assertFalse(glob.matches(dashes));
        long bound = 2L * glob.states() * (dashes.length() + 1);
        long steps = glob.steps(dashes);
        assertTrue(steps <= bound, steps + " steps, more than the bound " + bound);
        // a backtracking matcher tries every way of placing four dashes among 244: about 1.4e8 ways
        assertTrue(steps < 20_000, steps + " steps");

        String named = "-".repeat(232) + ".safetensors";
        assertTrue(glob.matches(named));
        assertTrue(glob.steps(named) <= 2L * glob.states() * (named.length() + 1));
        // every star, group and class at once stays within the bound too
        NameGlob busy = NameGlob.compile("{*a*,*b*,*[!c]*}*?*{x,y*,}*");
        String abc = "ab".repeat(500);
        assertTrue(busy.steps(abc) <= 2L * busy.states() * (abc.length() + 1));
    }

    @Test
    void everyFeatureOfTheSyntaxMatchesAsTheJdkGlobDoes() {
        assertMatches("*.safetensors", "model.safetensors", true);
        assertMatches("*.safetensors", "model.safetensors.index.json", false);
        assertMatches("**.json", "a.b.json", true);
        assertMatches("model-?????-of-*.safetensors", "model-00001-of-00002.safetensors", true);
        assertMatches("model-?????-of-*.safetensors", "model-0001-of-00002.safetensors", false);
        assertMatches("?.bin", "\uD83D\uDE00.bin", true);
        assertMatches("[abc].bin", "b.bin", true);
        assertMatches("[a-c].bin", "d.bin", false);
        assertMatches("[!a-c].bin", "d.bin", true);
        assertMatches("[!a-c].bin", "a.bin", false);
        assertMatches("[^a].bin", "^.bin", true);
        assertMatches("[^a].bin", "b.bin", false);
        assertMatches("[-a].bin", "-.bin", true);
        assertMatches("[a-].bin", "-.bin", true);
        assertMatches("[\\].bin", "\\.bin", true);
        assertMatches("{model,diffusion_pytorch_model}.safetensors", "diffusion_pytorch_model.safetensors", true);
        assertMatches("{a,b}*{c,d}", "axd", true);
        assertMatches("x{,a}", "x", true);
        assertMatches("{a,b", null, false);
        assertMatches("a}", "a}", true);
        assertMatches("a,b", "a,b", true);
        assertMatches("\\*.bin", "*.bin", true);
        assertMatches("\\*.bin", "a.bin", false);
        assertMatches("\\[a].bin", "[a].bin", true);
        assertMatches("Model.safetensors", "model.safetensors", false);
        assertFalse(NameGlob.compile("*").matches(""), "an empty name matches nothing");
        assertFalse(NameGlob.compile("*").matches("a/b"), "a name has no folders");
        assertFalse(NameGlob.compile("*").matches("a\0b"), "no file system holds NUL");
        for (String bad : List.of("[", "[a", "[]", "[!]", "[c-a]", "[a-c-e]", "[a/]", "{a,{b}}", "{a", "\\")) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NameGlob.compile(bad),
                    bad);
            assertTrue(e.getMessage().startsWith("the glob '" + bad + "' is malformed: "), e.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> NameGlob.compile(""));
    }

    /**
     * Random patterns and names over the syntax's characters, judged by the JDK's own glob (a regular expression, so
     * short patterns only), which this one replaces: the same patterns refused, the same names matched. Left out: a
     * range ending in {@code \} or {@code [}, which the JDK copies into its regular expression unescaped, and line
     * terminators, which its {@code **} (a regular expression's {@code .*}) does not match.
     */
    @Test
    void randomPatternsAgreeWithTheJdkGlob() {
        Random random = new Random(20261202L);
        String patternChars = "ab-*?[]!^{},\\.";
        String nameChars = "ab-.!^,{}[]\\*?";
        int compared = 0;
        for (int p = 0; p < 20_000; p++) {
            String pattern = random(random, patternChars, 1 + random.nextInt(8));
            if (pattern.contains("-\\") || pattern.contains("-[")) {
                continue;
            }
            PathMatcher jdk;
            try {
                jdk = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
            } catch (PatternSyntaxException e) {
                assertThrows(IllegalArgumentException.class, () -> NameGlob.compile(pattern), pattern);
                continue;
            }
            NameGlob glob;
            try {
                glob = NameGlob.compile(pattern);
            } catch (IllegalArgumentException e) {
                fail("the JDK takes '" + pattern + "', this refuses it: " + e.getMessage());
                return;
            }
            for (int n = 0; n < 30; n++) {
                String name = random(random, nameChars, 1 + random.nextInt(6));
                assertEquals(jdk.matches(Path.of(name)), glob.matches(name), pattern + " against " + name);
                compared++;
            }
        }
        assertTrue(compared > 100_000, compared + " comparisons");
    }

    private static String random(Random random, String chars, int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(chars.charAt(random.nextInt(chars.length())));
        }
        return sb.toString();
    }

    private static void assertMatches(String pattern, String name, boolean expected) {
        PathMatcher jdk;
        try {
            jdk = FileSystems.getDefault().getPathMatcher("glob:" + pattern);
        } catch (PatternSyntaxException e) {
            assertThrows(IllegalArgumentException.class, () -> NameGlob.compile(pattern), pattern);
            return;
        }
        assertEquals(expected, jdk.matches(Path.of(name)), "the JDK's glob: " + pattern + " against " + name);
        assertEquals(expected, NameGlob.compile(pattern).matches(name), pattern + " against " + name);
    }
}
