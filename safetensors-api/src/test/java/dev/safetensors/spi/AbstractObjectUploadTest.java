package dev.safetensors.spi;

import dev.safetensors.StorageException;
import dev.safetensors.ErrorCode;
import dev.safetensors.Location;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AbstractObjectUploadTest {
    private static final Location OBJECT = Location.parse("mem://bucket/m.safetensors");

    /** Bytes staged in memory; each hook counts its calls, and may be told to fail. */
    private static class Staged extends AbstractObjectUpload {
        final ByteArrayOutputStream staged = new ByteArrayOutputStream();
        IOException appendFails;
        IOException publishFails;
        IOException discardFails;
        int publishes;
        int discards;

        @Override
        protected void append(ByteBuffer src) throws IOException {
            if (appendFails != null) {
                throw appendFails;
            }
            byte[] bytes = new byte[src.remaining()];
            src.get(bytes);
            staged.writeBytes(bytes);
        }

        @Override
        protected WrittenObject publish() throws IOException {
            publishes++;
            if (publishFails != null) {
                throw publishFails;
            }
            return new WrittenObject(OBJECT, written(), Optional.empty());
        }

        @Override
        protected void discard() throws IOException {
            discards++;
            if (discardFails != null) {
                throw discardFails;
            }
        }
    }

    private static ByteBuffer bytes(int... values) {
        ByteBuffer buffer = ByteBuffer.allocate(values.length);
        for (int v : values) {
            buffer.put((byte) v);
        }
        return buffer.flip();
    }

    @Test
    void writeHandsAllBytesOnAndCountsThem() throws IOException {
        Staged upload = new Staged();
        ByteBuffer src = bytes(1, 2, 3);
        assertEquals(3, upload.write(src));
        assertFalse(src.hasRemaining());
        assertEquals(2, upload.write(bytes(4, 5)));
        assertEquals(5, upload.written());
        assertArrayEquals(new byte[] {1, 2, 3, 4, 5}, upload.staged.toByteArray());
        assertTrue(upload.isOpen());
    }

    @Test
    void aWriteAfterCloseIsAClosedChannel() throws IOException {
        Staged upload = new Staged();
        upload.write(bytes(1));
        upload.close();
        assertFalse(upload.isOpen());
        assertThrows(ClosedChannelException.class, () -> upload.write(bytes(2)));
        assertEquals(1, upload.written());
    }

    @Test
    void aSecondCommitIsAClosedChannelAndPublishesNothing() throws IOException {
        Staged upload = new Staged();
        upload.write(bytes(1, 2));
        WrittenObject written = upload.commit();
        assertEquals(OBJECT, written.location());
        assertEquals(2, written.size());
        assertFalse(upload.isOpen());
        assertThrows(ClosedChannelException.class, upload::commit);
        assertThrows(ClosedChannelException.class, () -> upload.write(bytes(3)));
        assertEquals(1, upload.publishes);
    }

    @Test
    void anAbortOrCloseAfterACommitDiscardsNothing() throws IOException {
        Staged upload = new Staged();
        upload.commit();
        upload.abort();
        upload.close();
        assertEquals(0, upload.discards);
    }

    @Test
    void aCloseWithoutACommitDiscardsOnceHoweverOftenItIsCalled() throws IOException {
        Staged upload = new Staged();
        upload.write(bytes(1));
        upload.close();
        upload.abort();
        upload.close();
        assertEquals(1, upload.discards);
        assertThrows(ClosedChannelException.class, upload::commit);
        assertEquals(0, upload.publishes);
    }

    @Test
    void aFailedPublishDiscardsOnceAndItsFailurePropagates() throws IOException {
        Staged upload = new Staged();
        upload.write(bytes(1));
        upload.publishFails = new StorageException(ErrorCode.WRITE_FAILED, "o", "refused");
        StorageException failure = assertThrows(StorageException.class, upload::commit);
        assertSame(upload.publishFails, failure);
        assertEquals(ErrorCode.WRITE_FAILED, failure.code());
        assertEquals(1, upload.discards);
        assertFalse(upload.isOpen());
        upload.close();
        assertEquals(1, upload.discards, "close after the failure discards nothing more");
        assertThrows(ClosedChannelException.class, upload::commit);
        assertEquals(1, upload.publishes);
    }

    @Test
    void aFailedAppendDiscardsOnceAndClosesTheUpload() throws IOException {
        Staged upload = new Staged();
        upload.write(bytes(1));
        upload.appendFails = new StorageException(ErrorCode.WRITE_FAILED, "o", "part refused");
        StorageException refused = assertThrows(StorageException.class, () -> upload.write(bytes(2)));
        assertSame(upload.appendFails, refused);
        assertEquals(ErrorCode.WRITE_FAILED, refused.code());
        assertEquals(1, upload.written(), "the failed write is not counted");
        assertEquals(1, upload.discards);
        assertFalse(upload.isOpen());
        assertThrows(ClosedChannelException.class, () -> upload.write(bytes(3)));
        upload.close();
        assertEquals(1, upload.discards);
    }

    @Test
    void aFailedDiscardIsSuppressedInTheFailureThatCausedIt() {
        Staged upload = new Staged();
        upload.publishFails = new StorageException(ErrorCode.WRITE_FAILED, "o", "refused");
        upload.discardFails = new IOException("abort refused");
        StorageException failure = assertThrows(StorageException.class, upload::commit);
        assertSame(upload.publishFails, failure);
        assertEquals(ErrorCode.WRITE_FAILED, failure.code());
        assertArrayEquals(new Throwable[] {upload.discardFails}, failure.getSuppressed());
    }

    @Test
    void aFailureIsReportedAsTheSubclassCodesIt() {
        StorageException[] coded = new StorageException[1];
        Staged upload = new Staged() {
            @Override
            protected IOException coded(IOException failure) {
                coded[0] = new StorageException(ErrorCode.SERVER_ERROR, "o", "coded", failure);
                return coded[0];
            }
        };
        upload.publishFails = new IOException("raw");
        StorageException thrown = assertThrows(StorageException.class, upload::commit);
        assertSame(coded[0], thrown);
        assertEquals(ErrorCode.SERVER_ERROR, thrown.code());
        assertSame(upload.publishFails, thrown.getCause());
    }

    @Test
    void aRuntimeFailureOfPublishAlsoDiscards() {
        Staged upload = new Staged() {
            @Override
            protected WrittenObject publish() {
                throw new IllegalStateException("bug");
            }
        };
        assertThrows(IllegalStateException.class, upload::commit);
        assertEquals(1, upload.discards);
    }
}
