package dev.safetensors.core;

import dev.safetensors.ErrorCode;
import dev.safetensors.InvalidLocationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An output location with a scheme is never a local path. */
class OutputFolderTest {
    @TempDir
    Path dir;

    @Test
    void aLocationWithASchemeIsRefusedAndNeverTakenForAPath() {
        for (String out : List.of("s3://bkt/out/", "gs://bkt/out", "az://acct/c/out/", "hf://acme/tiny",
                "https://host/out/", "x-store+v1://a/b", "s3://bkt out/", "S3://BKT/", "ftp:relative")) {
            InvalidLocationException e = assertThrows(InvalidLocationException.class, () -> OutputFolder.local(out),
                    out);
            assertEquals(ErrorCode.UNSUPPORTED_SCHEME, e.code(), out);
            assertTrue(e.getMessage().contains("writes go to local folders only, for now"), e.getMessage());
        }
        InvalidLocationException secret = assertThrows(InvalidLocationException.class,
                () -> OutputFolder.local("https://user:hunter2@host/a b/"));
        assertFalse(secret.getMessage().contains("hunter2"), secret.getMessage());
        InvalidLocationException badFile = assertThrows(InvalidLocationException.class,
                () -> OutputFolder.local("file:///tmp/a b"));
        assertEquals(ErrorCode.INVALID_SOURCE, badFile.code());
    }

    @Test
    void aPlainPathOrAFileUriIsTheLocalFolder() throws Exception {
        assertEquals(Path.of("out/shards"), OutputFolder.local("out/shards"));
        assertEquals(Path.of("./s3:/bkt"), OutputFolder.local("./s3:/bkt"));
        assertEquals(Path.of("C:\\out"), OutputFolder.local("C:\\out"));
        assertEquals(dir.resolve("x"), OutputFolder.local(dir.resolve("x").toUri().toString()));
        InvalidLocationException nul = assertThrows(InvalidLocationException.class,
                () -> OutputFolder.local("a\0b"));
        assertEquals(ErrorCode.INVALID_SOURCE, nul.code());
    }
}
