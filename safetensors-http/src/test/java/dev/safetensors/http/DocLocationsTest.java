package dev.safetensors.http;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keeps the docs' {@code hf://} locations honest: every concrete location in README.md and docs/*.md parses with the
 * Hub location parser ({@link HubPath#parse}), the ones the docs show as refused are refused, and every syntax pattern
 * ({@code hf://NAMESPACE/REPO[@REVISION]/PATH}, with placeholders or brackets) puts the revision right after the
 * repository, where the parser takes it.
 */
class DocLocationsTest {
    private static final Path ROOT = Path.of("..");
    private static final Pattern LOCATION = Pattern.compile("hf://[^\\s`'\"<>()|,]*");
    /** The form of earlier versions, which hub.md shows as refused. */
    private static final Set<String> REFUSED = Set.of("hf://acme/repo/model.safetensors@main");
    private static final Pattern PLACEHOLDER = Pattern.compile("(?:^|/)[A-Z]{2,}(?:/|$|\\[|@)");

    record Found(String file, int line, String location) {
        String where() {
            return file + ":" + line + ": " + location;
        }
    }

    static List<Found> locations() throws IOException {
        List<Path> files = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(files::add);
        }
        List<Found> found = new ArrayList<>();
        for (Path file : files) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = LOCATION.matcher(lines.get(i));
                while (m.find()) {
                    String location = m.group().replaceAll("[.:;]+$", "");
                    if (!location.equals("hf://")) {
                        found.add(new Found(ROOT.relativize(file).toString(), i + 1, location));
                    }
                }
            }
        }
        return found;
    }

    private static boolean isPattern(String location) {
        return location.contains("[") || location.contains("…") || location.contains("...")
                || PLACEHOLDER.matcher(location.substring("hf://".length())).find();
    }

    @Test
    void everyConcreteLocationInTheDocsParses() throws IOException {
        int parsed = 0;
        for (Found f : locations()) {
            if (isPattern(f.location())) {
                continue;
            }
            if (REFUSED.contains(f.location())) {
                InvalidLocationException e = assertThrows(InvalidLocationException.class,
                        () -> HubPath.parse(URI.create(f.location())), f.where());
                assertEquals(ErrorCode.INVALID_SOURCE, e.code(), f.where());
                continue;
            }
            try {
                HubPath.parse(URI.create(f.location()));
            } catch (IOException | IllegalArgumentException e) {
                throw new AssertionError("does not parse: " + f.where() + ": " + e.getMessage(), e);
            }
            parsed++;
        }
        assertTrue(parsed > 10, parsed + " locations parsed");
    }

    @Test
    void everySyntaxPatternPutsTheRevisionAfterTheRepository() throws IOException {
        int patterns = 0;
        for (Found f : locations()) {
            if (!isPattern(f.location())) {
                continue;
            }
            patterns++;
            // drop the optional repository type, then NAMESPACE/REPO must be all that precedes '@'
            String rest = f.location().substring("hf://".length()).replaceFirst("^\\[[a-z/|]+\\]", "");
            int at = rest.indexOf('@');
            if (at >= 0) {
                String before = rest.substring(0, at).replaceAll("\\[$", "");
                assertEquals(1, before.chars().filter(c -> c == '/').count(),
                        "the revision follows NAMESPACE/REPO: " + f.where());
            }
        }
        assertFalse(patterns == 0, "the docs show the syntax");
    }
}
