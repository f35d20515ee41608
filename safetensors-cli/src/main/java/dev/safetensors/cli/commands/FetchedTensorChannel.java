package dev.safetensors.cli.commands;

import dev.safetensors.ErrorCode;
import dev.safetensors.StorageException;
import dev.safetensors.core.SafetensorsFile;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * One tensor of a remote file as a channel to pull from, filled by {@link SafetensorsFile#copyTensorTo} on a thread of
 * its own. The writer pulls its input while the file pushes its parts, so this is how a reshard gets the remote
 * layer's parallel, retried parts ({@code --parallel}, {@code --part-size}) and its free reads of tensors that came
 * with the header. Memory: the parts in flight plus at most {@value #QUEUED} blocks handed over.
 */
final class FetchedTensorChannel implements ReadableByteChannel {
    private static final int QUEUED = 16;
    /** Put after the last block. */
    private static final Object END = new Object();

    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUED);
    private final String name;
    private final Thread producer;
    private ByteBuffer current = ByteBuffer.allocate(0);
    private boolean ended;
    private boolean open = true;

    private FetchedTensorChannel(SafetensorsFile file, String tensor, String name) {
        this.name = name;
        this.producer = new Thread(() -> produce(file, tensor), "reshard-fetch");
        producer.setDaemon(true);
    }

    /**
     * @param file   the open file that holds the tensor
     * @param tensor its name
     * @param name   the file's name, for messages
     * @return a channel over its bytes, already being fetched; close it to stop the fetch
     */
    static FetchedTensorChannel start(SafetensorsFile file, String tensor, String name) {
        FetchedTensorChannel channel = new FetchedTensorChannel(file, tensor, name);
        channel.producer.start();
        return channel;
    }

    private void produce(SafetensorsFile file, String tensor) {
        Object last = END;
        try {
            file.copyTensorTo(tensor, new WritableByteChannel() {
                @Override
                public int write(ByteBuffer src) throws IOException {
                    // the file reuses its block: hand over a copy
                    ByteBuffer copy = ByteBuffer.allocate(src.remaining()).put(src).flip();
                    try {
                        queue.put(copy);
                    } catch (InterruptedException e) {
                        throw new InterruptedIOException("the reader closed the channel");
                    }
                    return copy.remaining();
                }

                @Override
                public boolean isOpen() {
                    return true;
                }

                @Override
                public void close() {
                    // the reader owns the end of the stream
                }
            });
        } catch (IOException e) {
            last = e;
        } catch (RuntimeException | Error e) {
            // nothing unchecked reaches the writer, and the reader must not wait for an END that never comes
            last = new StorageException(ErrorCode.IO_ERROR, name, String.valueOf(e), e);
        }
        try {
            queue.put(last);
        } catch (InterruptedException e) {
            // closed by the reader, who no longer waits
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (!open) {
            throw new ClosedChannelException();
        }
        while (!current.hasRemaining()) {
            if (ended) {
                return -1;
            }
            Object next = take();
            if (next == END) {
                ended = true;
                return -1;
            }
            if (next instanceof IOException e) {
                ended = true;
                throw e;
            }
            current = (ByteBuffer) next;
        }
        int n = Math.min(dst.remaining(), current.remaining());
        dst.put(current.slice(current.position(), n));
        current.position(current.position() + n);
        return n;
    }

    private Object take() throws StorageException {
        try {
            return queue.take();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(ErrorCode.INTERRUPTED, name, "interrupted while reading");
        }
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    /** Stops the fetch and waits for its thread, so the file can be closed after this returns. */
    @Override
    public void close() throws IOException {
        if (!open) {
            return;
        }
        open = false;
        producer.interrupt();
        try {
            producer.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StorageException(ErrorCode.INTERRUPTED, name, "interrupted while stopping a fetch");
        }
    }
}
