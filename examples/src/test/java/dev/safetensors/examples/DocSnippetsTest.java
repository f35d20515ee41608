package dev.safetensors.examples;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.MatchResult;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Every {@code ```java} block of {@code README.md} and {@code docs/*.md} compiles against the built modules, so the
 * documentation cannot drift from the API. A block that declares a type is compiled as written, and must carry its
 * own imports; any other block is a fragment: its leading {@code import} lines stay imports, and the rest becomes the
 * body of a method that may throw, with the library's packages and the JDK's usual ones imported. Deprecated API
 * use is an error, as is any other compiler warning.
 *
 * <p>The snippets are compiled together first, in one javac task, which costs a fraction of a task each (javac's
 * start and its symbol tables, once). A snippet passes on that compilation only if it had no diagnostic at all and
 * no other snippet declares a type whose name it uses (which would resolve to that type together, not alone); any
 * other snippet, and every snippet once that compilation reports anything, is compiled alone, and that compilation
 * decides.
 */
class DocSnippetsTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern BLOCK = Pattern.compile("(?m)^```java\\n(.*?)^```", Pattern.DOTALL);
    private static final Pattern TYPE = Pattern.compile(
            "(?m)^(?:public\\s+|final\\s+|abstract\\s+)*(?:class|interface|record|enum)\\s+(\\w+)");
    private static final Pattern IMPORT = Pattern.compile("^import\\s+(static\\s+)?[\\w.]+(\\.\\*)?;\\s*$");
    /** Every type a unit declares, nested ones included: the names another snippet could resolve to. */
    private static final Pattern DECLARED = Pattern.compile("\\b(?:class|interface|record|enum)\\s+(\\w+)");
    private static final Pattern WORD = Pattern.compile("\\w+");
    private static final String FRAGMENT_IMPORTS = """
            import dev.safetensors.*;
            import dev.safetensors.core.*;
            import dev.safetensors.http.*;
            import dev.safetensors.s3.*;
            import dev.safetensors.gcs.*;
            import dev.safetensors.signing.*;
            import software.amazon.awssdk.services.s3.S3Client;
            import java.io.*;
            import java.net.URI;
            import java.nio.ByteBuffer;
            import java.nio.channels.*;
            import java.nio.file.*;
            import java.security.*;
            import java.util.*;
            """;

    private static final JavaCompiler JAVAC = ToolProvider.getSystemJavaCompiler();
    /** One file manager for every snippet: it opens the class path's jars once, not once per snippet. */
    private static StandardJavaFileManager files;
    /** The snippets that compiled together with no diagnostic and use no name another snippet declares. */
    private static final Set<String> PASSED_TOGETHER = new HashSet<>();

    @TempDir
    static Path out;

    @BeforeAll
    static void compileTogether() throws IOException {
        files = JAVAC.getStandardFileManager(null, Locale.ROOT, StandardCharsets.UTF_8);
        List<Snippet> all = snippets();
        List<Unit> units = all.stream().map(DocSnippetsTest::unit).toList();
        if (!compile(units, Files.createDirectories(out.resolve("together"))).isEmpty()) {
            return; // each snippet alone, then, so that each names its own errors
        }
        Map<String, Integer> declarers = new HashMap<>();
        for (Unit unit : units) {
            Matcher declared = DECLARED.matcher(unit.source());
            while (declared.find()) {
                declarers.merge(declared.group(1), 1, Integer::sum);
            }
        }
        for (int i = 0; i < all.size(); i++) {
            Unit unit = units.get(i);
            Set<String> own = new HashSet<>();
            DECLARED.matcher(unit.source()).results().forEach(r -> own.add(r.group(1)));
            boolean usesAnother = WORD.matcher(unit.source()).results().map(MatchResult::group)
                    .anyMatch(w -> declarers.getOrDefault(w, 0) > (own.contains(w) ? 1 : 0));
            if (!usesAnother) {
                PASSED_TOGETHER.add(all.get(i).name());
            }
        }
    }

    @AfterAll
    static void closeFiles() throws IOException {
        files.close();
    }

    record Snippet(String file, int line, String code) {
        String name() {
            return file + ":" + line;
        }
    }

    static List<Snippet> snippets() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            // docs/spark.md is left to safetensors-spark, the one module with Spark on its class path: its Java example
            // runs there as CatalogueExampleTest
            docs.filter(p -> p.toString().endsWith(".md") && !p.getFileName().toString().equals("spark.md"))
                    .sorted().forEach(files::add);
        }
        List<Snippet> all = new ArrayList<>();
        for (Path file : files) {
            String text = Files.readString(file);
            Matcher m = BLOCK.matcher(text);
            while (m.find()) {
                int line = 1 + (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count();
                if (m.group(1).startsWith("// JDK 22+")) {
                    continue; // examples/memory's MapAnySizeTest checks these against its compiled example
                }
                all.add(new Snippet(ROOT.relativize(file).toString(), line, m.group(1)));
            }
        }
        return all;
    }

    @Test
    void theFrontPageAndTheDocsHaveSnippets() throws IOException {
        List<Snippet> all = snippets();
        assertTrue(all.stream().anyMatch(s -> s.file().equals("README.md")), "README.md has a java block");
        assertTrue(all.stream().anyMatch(s -> s.file().startsWith("docs")), "docs/ has java blocks");
    }

    @Test
    void aSnippetThatUsesAMissingMethodFails() throws IOException {
        // the check itself: a snippet naming an API that does not exist must not pass
        List<String> errors = compile(new Snippet("drift.md", 1, "Sources.openEverything(\"x\");\n"));
        assertEquals(1, errors.size(), errors.toString());
        assertTrue(errors.get(0).contains("openEverything"), errors.get(0));
    }

    @TestFactory
    Stream<DynamicTest> everySnippetCompiles() throws IOException {
        return snippets().stream().map(s -> DynamicTest.dynamicTest(s.name(), () -> {
            if (PASSED_TOGETHER.contains(s.name())) {
                return;
            }
            List<String> errors = compile(s);
            if (!errors.isEmpty()) {
                fail(s.name() + " does not compile:\n" + String.join("\n", errors) + "\n--- source ---\n"
                        + unit(s).source());
            }
        }));
    }

    private record Unit(String className, String source) {
    }

    private static Unit unit(Snippet s) {
        Matcher type = TYPE.matcher(s.code());
        if (type.find()) {
            return new Unit(type.group(1), s.code());
        }
        StringBuilder imports = new StringBuilder(FRAGMENT_IMPORTS);
        StringBuilder body = new StringBuilder();
        boolean header = true;
        for (String line : s.code().split("\n", -1)) {
            if (header && (IMPORT.matcher(line).matches() || line.isBlank())) {
                imports.append(line).append('\n');
            } else {
                header = false;
                body.append("        ").append(line).append('\n');
            }
        }
        String className = "Snippet_" + s.file().replaceAll("\\W", "_") + "_" + s.line();
        return new Unit(className, imports + "\nclass " + className + " {\n"
                + "    @SuppressWarnings(\"unused\")\n"
                + "    void snippet() throws Exception {\n" + body + "    }\n}\n");
    }

    private static List<String> compile(Snippet s) throws IOException {
        return compile(List.of(unit(s)), Files.createTempDirectory(out, "alone"));
    }

    /** Compiles the units in one task into {@code classes}, and returns its errors and warnings. */
    private static List<String> compile(List<Unit> units, Path classes) {
        List<JavaFileObject> sources = new ArrayList<>();
        for (Unit unit : units) {
            sources.add(new SimpleJavaFileObject(
                    URI.create("string:///" + unit.className() + ".java"), JavaFileObject.Kind.SOURCE) {
                @Override
                public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                    return unit.source();
                }
            });
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        List<String> options = List.of("--release", "17", "-proc:none", "-Xlint:all,-processing", "-Werror",
                "-classpath", System.getProperty("java.class.path"), "-d", classes.toString());
        JAVAC.getTask(null, files, diagnostics, options, null, sources).call();
        List<String> errors = new ArrayList<>();
        for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
            if (d.getKind() == Diagnostic.Kind.ERROR || d.getKind() == Diagnostic.Kind.WARNING
                    || d.getKind() == Diagnostic.Kind.MANDATORY_WARNING) {
                errors.add("line " + d.getLineNumber() + ": " + d.getMessage(Locale.ROOT));
            }
        }
        return errors;
    }
}
