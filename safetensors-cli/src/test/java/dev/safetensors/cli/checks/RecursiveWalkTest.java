package dev.safetensors.cli.checks;

import dev.safetensors.ErrorCode;
import dev.safetensors.ListEntry;
import dev.safetensors.fixtures.FixedListing;
import dev.safetensors.ListOptions;
import dev.safetensors.Listing;
import dev.safetensors.Location;
import dev.safetensors.RandomAccessSource;
import dev.safetensors.RandomAccessSourceProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import dev.safetensors.cli.arguments.SourceArguments;
import dev.safetensors.cli.backends.SourceOpener;
import dev.safetensors.cli.results.Failure;
import dev.safetensors.cli.results.Status;
import dev.safetensors.cli.InProcess;
import dev.safetensors.cli.Cli;
import dev.safetensors.cli.Fixtures;

/**
 * What a recursive listing did not walk is said: links to folders and loops in the summary, a refused subfolder and
 * a name no request can name as {@code ERROR} lines (exit 3); and what a listing holds back is bounded.
 */
class RecursiveWalkTest {
    @TempDir
    Path base;

    @Test
    void linksToFoldersAreNotFollowedAndTheSummarySaysSo() throws IOException {
        Path root = Files.createDirectories(base.resolve("root"));
        Path outside = Files.createDirectories(base.resolve("outside"));
        Fixtures.write(root, "a.safetensors", Fixtures.small().build());
        // a diamond of two links a level over 12 levels: followed, its one file would be checked 4,096 times
        int levels = 12;
        for (int i = levels; i >= 0; i--) {
            Path d = Files.createDirectories(outside.resolve("d" + i));
            if (i == levels) {
                Fixtures.write(d, "w.safetensors", Fixtures.small().build());
            } else {
                Files.createSymbolicLink(d.resolve("left"), outside.resolve("d" + (i + 1)));
                Files.createSymbolicLink(d.resolve("right"), outside.resolve("d" + (i + 1)));
            }
        }
        Files.createSymbolicLink(root.resolve("left"), outside.resolve("d0"));
        Files.createSymbolicLink(root.resolve("right"), outside.resolve("d0"));
        Cli.Run run = InProcess.run("validate", "--json", "--recursive", root.toString()).exits(0);
        List<JsonNode> results = run.json();
        assertEquals(1, results.size(), run.describe());
        assertEquals(root.resolve("a.safetensors").toString(), results.get(0).get("source").asString());
        assertEquals(1, run.errLines().size(), run.describe());
        String summary = run.errLines().get(0);
        assertTrue(summary.startsWith("safetensors: 1 result: 1 valid; listing: 0 requests; not followed: 2 links to"
                + " a folder or loop ("), summary);
    }

    @Test
    void aFolderOfModeZeroIsAnAccessDeniedLineAndExitThree() throws IOException {
        Path root = Files.createDirectories(base.resolve("root"));
        Fixtures.write(root, "a.safetensors", Fixtures.small().build());
        Path locked = Files.createDirectories(root.resolve("locked"));
        Fixtures.write(locked, "hidden.safetensors", Fixtures.small().build());
        Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("---------"));
        try {
            boolean refused;
            try {
                Files.newDirectoryStream(locked).close();
                refused = false;
            } catch (AccessDeniedException e) {
                refused = true;
            }
            assumeTrue(refused, "SKIPPED: this user (root) may read a folder of mode 000; a refused folder's line"
                    + " and exit code are covered by aRefusedFolderAndAnUnnameableNameAreErrorTargets");
            Cli.Run run = InProcess.run("validate", "--json", "--recursive", root.toString()).exits(3);
            List<JsonNode> results = run.json();
            assertEquals(2, results.size(), run.describe());
            JsonNode denied = results.stream().filter(n -> n.get("source").asString().endsWith("locked"))
                    .findFirst().orElseThrow();
            assertEquals("error", denied.get("status").asString());
            assertEquals("ACCESS_DENIED", denied.get("code").asString());
        } finally {
            Files.setPosixFilePermissions(locked, PosixFilePermissions.fromString("rwx------"));
        }
    }

    /** Serves {@code s3://} listings of the given entries; opening anything is a test failure. */
    private static final class Listed implements RandomAccessSourceProvider {
        private final List<ListEntry> entries;

        Listed(List<ListEntry> entries) {
            this.entries = entries;
        }

        @Override
        public boolean supports(Location location) {
            return "s3".equals(location.scheme());
        }

        @Override
        public RandomAccessSource open(Location location) {
            throw new AssertionError("nothing is opened while targets are only listed: " + location);
        }

        @Override
        public Listing list(Location prefix, ListOptions options) {
            return FixedListing.of(entries);
        }
    }

    private static TargetStream targets(List<ListEntry> entries, ListOptions base) {
        SourceArguments arguments = new SourceArguments();
        arguments.recursive = true;
        return new TargetStream(List.of("s3://bucket/p/").iterator(), arguments,
                new SourceOpener(new Listed(entries)), dev.safetensors.Limits.STRICT, base);
    }

    @Test
    void aRefusedFolderAndAnUnnameableNameAreErrorTargets() {
        List<ListEntry> entries = List.of(
                ListEntry.special(Location.parse("s3://bucket/p/locked/"), ListEntry.Kind.DENIED),
                ListEntry.special(Location.parse("s3://bucket/p/a%00b.safetensors"), ListEntry.Kind.INVALID_NAME),
                ListEntry.special(Location.parse("s3://bucket/p/gone/"), ListEntry.Kind.UNREADABLE),
                ListEntry.special(Location.parse("s3://bucket/p/latest/"), ListEntry.Kind.FOLDER_LINK),
                ListEntry.file(Location.parse("s3://bucket/p/ok.safetensors"), 8, null, null));
        TargetStream stream = targets(entries, ListOptions.DEFAULT);
        List<Target> got = new ArrayList<>();
        stream.forEachRemaining(got::add);
        assertEquals(4, got.size(), got.toString());
        List<ErrorCode> codes = got.subList(0, 3).stream().map(t -> ((Target.Checkpoint) t).failure())
                .peek(f -> assertEquals(Status.ERROR, f.status(), "exit 3")).map(Failure::code).toList();
        assertEquals(List.of(ErrorCode.ACCESS_DENIED, ErrorCode.INVALID_LISTING, ErrorCode.IO_ERROR), codes);
        assertEquals("s3://bucket/p/ok.safetensors", ((Target.File) got.get(3)).location().text());
        assertEquals(1, stream.notFollowed());
        assertEquals("s3://bucket/p/latest/", stream.firstNotFollowed());
    }

    @Test
    void shardNamedFilesWithoutAnIndexAreHeldBackWithinTheBoundAndEachCheckedOnce() {
        List<ListEntry> entries = new ArrayList<>();
        for (int i = 1; i <= 500; i++) {
            entries.add(ListEntry.file(Location.parse(String.format("s3://bucket/p/m%03d-00001-of-00002.safetensors",
                    i)), 8, null, null));
        }
        TargetStream stream = targets(entries, ListOptions.DEFAULT.withMaxHeldBack(16));
        List<String> got = new ArrayList<>();
        int most = 0;
        while (stream.hasNext()) {
            most = Math.max(most, stream.heldBack());
            got.add(((Target.File) stream.next()).location().text());
        }
        assertTrue(most <= 16, "held back " + most + " at once, over the bound of 16");
        assertEquals(500, got.size());
        assertEquals(500, got.stream().distinct().count(), "each once");
        assertEquals(entries.stream().map(e -> e.location().text()).toList(), got, "in listing order");
    }
}
