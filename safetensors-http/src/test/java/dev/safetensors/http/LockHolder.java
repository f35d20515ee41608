package dev.safetensors.http;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The program {@link HubBlobLockTest} runs in a child JVM, the other process a lock must exclude: {@code LOCKFILE}
 * locks the file as any fcntl-locking process would, says {@code locked} on stdout, and holds the lock until its
 * standard input ends.
 */
final class LockHolder {
    private LockHolder() {
    }

    public static void main(String[] args) throws IOException {
        try (FileChannel channel = FileChannel.open(Path.of(args[0]), StandardOpenOption.CREATE,
                StandardOpenOption.READ, StandardOpenOption.WRITE);
             FileLock lock = channel.lock()) {
            System.out.println("locked");
            System.out.flush();
            while (System.in.read() >= 0) {
                // holds the lock until the parent closes the pipe
            }
        }
    }
}
