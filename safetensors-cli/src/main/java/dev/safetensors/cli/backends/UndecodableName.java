package dev.safetensors.cli.backends;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Finds a local file whose name is not valid UTF-8. The JVM decodes the command line with the platform's encoding and
 * puts U+FFFD in place of every byte it cannot decode, so such a name as typed names no file; but a directory listing
 * keeps each entry's raw bytes, so the entry whose decoded name equals the typed one, when it is the only one, is the
 * file the user meant, and opening that entry reads it.
 */
final class UndecodableName {
    private static final char REPLACEMENT = '\uFFFD';

    private UndecodableName() {
    }

    /**
     * @param typed the path as the JVM decoded it
     * @return the path with the raw bytes of the names that lost bytes in decoding, or {@code typed} itself when
     *         nothing was lost or it names a file as it is
     * @throws NoSuchFileException if no entry, or more than one, matches a name that lost bytes
     * @throws IOException         if a directory cannot be listed
     */
    static Path resolve(Path typed) throws IOException {
        if (typed.toString().indexOf(REPLACEMENT) < 0 || Files.exists(typed, LinkOption.NOFOLLOW_LINKS)) {
            return typed;
        }
        Path current = typed.getRoot();
        for (Path segment : typed) {
            String name = segment.toString();
            Path next = current == null ? segment : current.resolve(segment);
            if (name.indexOf(REPLACEMENT) >= 0 && !Files.exists(next, LinkOption.NOFOLLOW_LINKS)) {
                next = match(current == null ? Path.of("") : current, name, typed);
            }
            current = next;
        }
        return current;
    }

    private static Path match(Path dir, String name, Path typed) throws IOException {
        Path found = null;
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir.toString().isEmpty() ? Path.of(".") : dir)) {
            for (Path entry : entries) {
                if (entry.getFileName().toString().equals(name)) {
                    if (found != null) {
                        throw new NoSuchFileException(typed.toString(), null, "names more than one file once its"
                                + " undecodable bytes are replaced: rename the files or pass the file another way");
                    }
                    found = entry;
                }
            }
        }
        if (found == null) {
            throw new NoSuchFileException(typed.toString());
        }
        return dir.toString().isEmpty() ? found.getFileName() : found;
    }
}
