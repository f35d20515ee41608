package dev.safetensors.signing.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.util.Arrays;

import static java.lang.Integer.rotateRight;

/**
 * BLAKE3 in its hash mode with the default 32-byte output: the {@code blake3} of OMS's algorithm registry, as the
 * reference implementation computes it ({@code blake3.blake3(data).digest()} in Python). The JDK has no BLAKE3.
 *
 * <p>The input is cut into 1024-byte chunks of 64-byte blocks; each chunk's blocks are chained through the
 * compression function, and the chunks' chaining values are merged pairwise into a binary tree, kept as a stack of
 * at most 54 chaining values (enough for 2^64 bytes). A block, a chunk or the tree is finished only once more input
 * shows it is not the last one, since the last gets the ROOT flag. Whole blocks are compressed straight from the
 * caller's bytes; the compression works on int locals, rounds unrolled, and nothing is allocated per block.
 */
public final class Blake3 extends MessageDigest {
    /** The digest length in bytes. */
    public static final int OUTPUT = 32;

    private static final int BLOCK = 64;
    private static final int BLOCKS_PER_CHUNK = 16;
    private static final int CHUNK_START = 1;
    private static final int CHUNK_END = 1 << 1;
    private static final int PARENT = 1 << 2;
    private static final int ROOT = 1 << 3;
    /** 54 levels hold the tree of 2^64 bytes; one slot more takes the last chunk's value when finishing. */
    private static final int STACK_SLOTS = 55;
    /** How much of a buffer without an array is copied at once into one that stays in the L1 cache. */
    private static final int COPY = 4096;
    private static final VarHandle LITTLE_ENDIAN_INT = MethodHandles.byteArrayViewVarHandle(int[].class,
            ByteOrder.LITTLE_ENDIAN);
    private static final int[] IV = {
            0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

    /** The current chunk's chaining value. */
    private final int[] cv = new int[8];
    /** The current chunk's last block so far, compressed only once more input follows. */
    private final byte[] block = new byte[BLOCK];
    /** Where a buffer without an array is copied, allocated on the first such buffer. */
    private byte[] copy;
    /** The chaining values of finished subtrees, 8 words each, the largest first. */
    private final int[] stack = new int[STACK_SLOTS * 8];
    /** One block's message words, loaded before each compression. */
    private final int[] words = new int[16];
    /** The first chunk of the tree this hashes: 0 for a whole message, more for a subtree of one. */
    private final long firstChunk;
    private int blockLength;
    private int blocksCompressed;
    private long chunkCounter;
    private int stackSize;

    /** A fresh digest. */
    public Blake3() {
        this(0);
    }

    private Blake3(long firstChunk) {
        super("BLAKE3");
        this.firstChunk = firstChunk;
        engineReset();
    }

    /**
     * A hasher of one subtree of a larger message, so that parts of one message are hashed on several threads: fed
     * exactly 2^{@code log2Chunks} whole chunks of the message, from chunk {@code firstChunk} (a multiple of that
     * count), then {@link #subtreeValue} gives the chaining value that {@link #appendSubtree} takes.
     *
     * @param firstChunk the subtree's first chunk in the message, counted from 0
     * @return a hasher of that subtree
     */
    public static Blake3 subtree(long firstChunk) {
        return new Blake3(firstChunk);
    }

    @Override
    protected void engineReset() {
        System.arraycopy(IV, 0, cv, 0, 8);
        blockLength = 0;
        blocksCompressed = 0;
        chunkCounter = firstChunk;
        stackSize = 0;
    }

    /**
     * @param log2Chunks the subtree's size: 2^{@code log2Chunks} chunks of 1024 bytes
     * @return the chaining value of the subtree this {@link #subtree} hasher was fed (8 words), never a root
     * @throws IllegalStateException if it was not fed exactly that many whole chunks
     */
    public int[] subtreeValue(int log2Chunks) {
        if (blockLength != BLOCK || blocksCompressed != BLOCKS_PER_CHUNK - 1
                || chunkCounter + 1 - firstChunk != 1L << log2Chunks || (firstChunk & ((1L << log2Chunks) - 1)) != 0) {
            throw new IllegalStateException("a subtree is 2^" + log2Chunks + " whole chunks from a multiple of that");
        }
        // the last block ends the last chunk; the chunk count then merges the stack down to the subtree's root
        loadWords(block, 0);
        fullBlock();
        int[] value = Arrays.copyOf(stack, 8);
        engineReset();
        return value;
    }

    /**
     * Adds a subtree's chaining value as if its chunks had been fed here, with more input to follow (the root is
     * never a subtree: at least one byte is fed after the last subtree).
     *
     * @param value      the {@link #subtreeValue} of the message's next 2^{@code log2Chunks} chunks
     * @param log2Chunks the subtree's size
     * @throws IllegalStateException if bytes were fed since the last subtree, or the subtree does not start at a
     *                               multiple of its size
     */
    public void appendSubtree(int[] value, int log2Chunks) {
        if (blockLength != 0 || blocksCompressed != 0 || firstChunk != 0
                || (chunkCounter & ((1L << log2Chunks) - 1)) != 0) {
            throw new IllegalStateException("a subtree follows whole subtrees only, at a multiple of its size");
        }
        System.arraycopy(value, 0, stack, stackSize * 8, 8);
        stackSize++;
        chunkCounter += 1L << log2Chunks;
        mergeCompleted(chunkCounter >>> log2Chunks);
    }

    @Override
    protected int engineGetDigestLength() {
        return OUTPUT;
    }

    @Override
    protected void engineUpdate(byte input) {
        engineUpdate(new byte[] {input}, 0, 1);
    }

    @Override
    protected void engineUpdate(byte[] input, int offset, int length) {
        absorb(input, offset, offset + length);
    }

    /**
     * A direct buffer is copied 4 KiB at a time into an array that stays in the L1 cache, as {@link MessageDigest}
     * does, but into the same array every time. Reading it in place through {@code ByteBuffer.getInt} measured 20 %
     * slower than the copy and the array path.
     */
    @Override
    protected void engineUpdate(ByteBuffer input) {
        if (input.hasArray()) {
            int at = input.arrayOffset() + input.position();
            absorb(input.array(), at, at + input.remaining());
            input.position(input.limit());
            return;
        }
        if (copy == null) {
            copy = new byte[COPY];
        }
        while (input.hasRemaining()) {
            int n = Math.min(COPY, input.remaining());
            input.get(copy, 0, n);
            absorb(copy, 0, n);
        }
    }

    private void absorb(byte[] in, int at, int end) {
        while (at < end) {
            if (blockLength == BLOCK) {
                // a full block with more input after it: not the last one of its chunk's output
                loadWords(block, 0);
                fullBlock();
                blockLength = 0;
            }
            if (blockLength == 0) {
                // whole blocks straight from the input, all but the input's last (it may be the final block)
                while (end - at > BLOCK) {
                    loadWords(in, at);
                    fullBlock();
                    at += BLOCK;
                }
            }
            int n = Math.min(BLOCK - blockLength, end - at);
            System.arraycopy(in, at, block, blockLength, n);
            blockLength += n;
            at += n;
        }
    }

    private void loadWords(byte[] in, int at) {
        int[] m = words;
        for (int i = 0; i < 16; i++) {
            m[i] = (int) LITTLE_ENDIAN_INT.get(in, at + 4 * i);
        }
    }

    /** Compresses the loaded full block, known not to be the last of the input, into the chunk. */
    private void fullBlock() {
        int flags = blocksCompressed == 0 ? CHUNK_START : 0;
        if (blocksCompressed == BLOCKS_PER_CHUNK - 1) {
            // the chunk's last block, and more input follows: the chunk is done and is not the root
            compress(cv, 0, words, 0, chunkCounter, BLOCK, flags | CHUNK_END, cv, 0);
            pushChunk();
        } else {
            compress(cv, 0, words, 0, chunkCounter, BLOCK, flags, cv, 0);
            blocksCompressed++;
        }
    }

    /** Pushes the finished chunk's chaining value and merges every pair of subtrees the new chunk completes. */
    private void pushChunk() {
        System.arraycopy(cv, 0, stack, stackSize * 8, 8);
        stackSize++;
        mergeCompleted(++chunkCounter - firstChunk);
        System.arraycopy(IV, 0, cv, 0, 8);
        blocksCompressed = 0;
    }

    /**
     * As many merges as trailing zero bits in the count of values pushed so far: each completes a subtree of twice
     * the size.
     */
    private void mergeCompleted(long pushed) {
        for (long count = pushed; (count & 1) == 0; count >>>= 1) {
            stackSize--;
            int left = (stackSize - 1) * 8;
            // the two chaining values lie side by side in the stack: together they are the parent's block
            compress(IV, 0, stack, left, 0, BLOCK, PARENT, stack, left);
        }
    }

    @Override
    protected byte[] engineDigest() {
        if (firstChunk != 0) {
            throw new IllegalStateException("a subtree from chunk " + firstChunk + " has a subtreeValue, no digest");
        }
        Arrays.fill(block, blockLength, BLOCK, (byte) 0);
        loadWords(block, 0);
        int flags = (blocksCompressed == 0 ? CHUNK_START : 0) | CHUNK_END;
        int[] out = new int[8];
        if (stackSize == 0) {
            // one chunk: it is the root
            compress(cv, 0, words, 0, 0, blockLength, flags | ROOT, out, 0);
        } else {
            int top = stackSize * 8;
            compress(cv, 0, words, 0, chunkCounter, blockLength, flags, stack, top);
            // merge from the right: the last chunk with the smallest subtree, up to the largest, the root
            for (int level = stackSize - 1; level >= 0; level--) {
                int left = level * 8;
                compress(IV, 0, stack, left, 0, BLOCK, PARENT | (level == 0 ? ROOT : 0),
                        level == 0 ? out : stack, level == 0 ? 0 : left);
            }
        }
        byte[] digest = new byte[OUTPUT];
        ByteBuffer.wrap(digest).order(ByteOrder.LITTLE_ENDIAN).asIntBuffer().put(out);
        engineReset();
        return digest;
    }

    /**
     * BLAKE3's compression function, the first 8 words of its output (all a chaining value or a 32-byte root output
     * needs). The state lives in 16 int locals; the message words are read from the array where each round needs
     * them (16 more locals measured 4 % slower: they do not fit in registers). Every input is read before
     * {@code out} is written, so it may overlap {@code chaining} or {@code m16}.
     */
    private static void compress(int[] chaining, int c, int[] m16, int m, long counter, int blockLength, int flags,
                                 int[] out, int o) {
        int v0 = chaining[c], v1 = chaining[c + 1], v2 = chaining[c + 2], v3 = chaining[c + 3];
        int v4 = chaining[c + 4], v5 = chaining[c + 5], v6 = chaining[c + 6], v7 = chaining[c + 7];
        int v8 = IV[0], v9 = IV[1], v10 = IV[2], v11 = IV[3];
        int v12 = (int) counter, v13 = (int) (counter >>> 32), v14 = blockLength, v15 = flags;
        // round 1
        v0 += v4 + m16[m]; v12 = rotateRight(v12 ^ v0, 16); v8 += v12; v4 = rotateRight(v4 ^ v8, 12);
        v0 += v4 + m16[m + 1]; v12 = rotateRight(v12 ^ v0, 8); v8 += v12; v4 = rotateRight(v4 ^ v8, 7);
        v1 += v5 + m16[m + 2]; v13 = rotateRight(v13 ^ v1, 16); v9 += v13; v5 = rotateRight(v5 ^ v9, 12);
        v1 += v5 + m16[m + 3]; v13 = rotateRight(v13 ^ v1, 8); v9 += v13; v5 = rotateRight(v5 ^ v9, 7);
        v2 += v6 + m16[m + 4]; v14 = rotateRight(v14 ^ v2, 16); v10 += v14; v6 = rotateRight(v6 ^ v10, 12);
        v2 += v6 + m16[m + 5]; v14 = rotateRight(v14 ^ v2, 8); v10 += v14; v6 = rotateRight(v6 ^ v10, 7);
        v3 += v7 + m16[m + 6]; v15 = rotateRight(v15 ^ v3, 16); v11 += v15; v7 = rotateRight(v7 ^ v11, 12);
        v3 += v7 + m16[m + 7]; v15 = rotateRight(v15 ^ v3, 8); v11 += v15; v7 = rotateRight(v7 ^ v11, 7);
        v0 += v5 + m16[m + 8]; v15 = rotateRight(v15 ^ v0, 16); v10 += v15; v5 = rotateRight(v5 ^ v10, 12);
        v0 += v5 + m16[m + 9]; v15 = rotateRight(v15 ^ v0, 8); v10 += v15; v5 = rotateRight(v5 ^ v10, 7);
        v1 += v6 + m16[m + 10]; v12 = rotateRight(v12 ^ v1, 16); v11 += v12; v6 = rotateRight(v6 ^ v11, 12);
        v1 += v6 + m16[m + 11]; v12 = rotateRight(v12 ^ v1, 8); v11 += v12; v6 = rotateRight(v6 ^ v11, 7);
        v2 += v7 + m16[m + 12]; v13 = rotateRight(v13 ^ v2, 16); v8 += v13; v7 = rotateRight(v7 ^ v8, 12);
        v2 += v7 + m16[m + 13]; v13 = rotateRight(v13 ^ v2, 8); v8 += v13; v7 = rotateRight(v7 ^ v8, 7);
        v3 += v4 + m16[m + 14]; v14 = rotateRight(v14 ^ v3, 16); v9 += v14; v4 = rotateRight(v4 ^ v9, 12);
        v3 += v4 + m16[m + 15]; v14 = rotateRight(v14 ^ v3, 8); v9 += v14; v4 = rotateRight(v4 ^ v9, 7);
        // round 2: the message words permuted 1 time
        v0 += v4 + m16[m + 2]; v12 = rotateRight(v12 ^ v0, 16); v8 += v12; v4 = rotateRight(v4 ^ v8, 12);
        v0 += v4 + m16[m + 6]; v12 = rotateRight(v12 ^ v0, 8); v8 += v12; v4 = rotateRight(v4 ^ v8, 7);
        v1 += v5 + m16[m + 3]; v13 = rotateRight(v13 ^ v1, 16); v9 += v13; v5 = rotateRight(v5 ^ v9, 12);
        v1 += v5 + m16[m + 10]; v13 = rotateRight(v13 ^ v1, 8); v9 += v13; v5 = rotateRight(v5 ^ v9, 7);
        v2 += v6 + m16[m + 7]; v14 = rotateRight(v14 ^ v2, 16); v10 += v14; v6 = rotateRight(v6 ^ v10, 12);
        v2 += v6 + m16[m]; v14 = rotateRight(v14 ^ v2, 8); v10 += v14; v6 = rotateRight(v6 ^ v10, 7);
        v3 += v7 + m16[m + 4]; v15 = rotateRight(v15 ^ v3, 16); v11 += v15; v7 = rotateRight(v7 ^ v11, 12);
        v3 += v7 + m16[m + 13]; v15 = rotateRight(v15 ^ v3, 8); v11 += v15; v7 = rotateRight(v7 ^ v11, 7);
        v0 += v5 + m16[m + 1]; v15 = rotateRight(v15 ^ v0, 16); v10 += v15; v5 = rotateRight(v5 ^ v10, 12);
        v0 += v5 + m16[m + 11]; v15 = rotateRight(v15 ^ v0, 8); v10 += v15; v5 = rotateRight(v5 ^ v10, 7);
        v1 += v6 + m16[m + 12]; v12 = rotateRight(v12 ^ v1, 16); v11 += v12; v6 = rotateRight(v6 ^ v11, 12);
        v1 += v6 + m16[m + 5]; v12 = rotateRight(v12 ^ v1, 8); v11 += v12; v6 = rotateRight(v6 ^ v11, 7);
        v2 += v7 + m16[m + 9]; v13 = rotateRight(v13 ^ v2, 16); v8 += v13; v7 = rotateRight(v7 ^ v8, 12);
        v2 += v7 + m16[m + 14]; v13 = rotateRight(v13 ^ v2, 8); v8 += v13; v7 = rotateRight(v7 ^ v8, 7);
        v3 += v4 + m16[m + 15]; v14 = rotateRight(v14 ^ v3, 16); v9 += v14; v4 = rotateRight(v4 ^ v9, 12);
        v3 += v4 + m16[m + 8]; v14 = rotateRight(v14 ^ v3, 8); v9 += v14; v4 = rotateRight(v4 ^ v9, 7);
        // round 3: the message words permuted 2 times
        v0 += v4 + m16[m + 3]; v12 = rotateRight(v12 ^ v0, 16); v8 += v12; v4 = rotateRight(v4 ^ v8, 12);
        v0 += v4 + m16[m + 4]; v12 = rotateRight(v12 ^ v0, 8); v8 += v12; v4 = rotateRight(v4 ^ v8, 7);
        v1 += v5 + m16[m + 10]; v13 = rotateRight(v13 ^ v1, 16); v9 += v13; v5 = rotateRight(v5 ^ v9, 12);
        v1 += v5 + m16[m + 12]; v13 = rotateRight(v13 ^ v1, 8); v9 += v13; v5 = rotateRight(v5 ^ v9, 7);
        v2 += v6 + m16[m + 13]; v14 = rotateRight(v14 ^ v2, 16); v10 += v14; v6 = rotateRight(v6 ^ v10, 12);
        v2 += v6 + m16[m + 2]; v14 = rotateRight(v14 ^ v2, 8); v10 += v14; v6 = rotateRight(v6 ^ v10, 7);
        v3 += v7 + m16[m + 7]; v15 = rotateRight(v15 ^ v3, 16); v11 += v15; v7 = rotateRight(v7 ^ v11, 12);
        v3 += v7 + m16[m + 14]; v15 = rotateRight(v15 ^ v3, 8); v11 += v15; v7 = rotateRight(v7 ^ v11, 7);
        v0 += v5 + m16[m + 6]; v15 = rotateRight(v15 ^ v0, 16); v10 += v15; v5 = rotateRight(v5 ^ v10, 12);
        v0 += v5 + m16[m + 5]; v15 = rotateRight(v15 ^ v0, 8); v10 += v15; v5 = rotateRight(v5 ^ v10, 7);
        v1 += v6 + m16[m + 9]; v12 = rotateRight(v12 ^ v1, 16); v11 += v12; v6 = rotateRight(v6 ^ v11, 12);
        v1 += v6 + m16[m]; v12 = rotateRight(v12 ^ v1, 8); v11 += v12; v6 = rotateRight(v6 ^ v11, 7);
        v2 += v7 + m16[m + 11]; v13 = rotateRight(v13 ^ v2, 16); v8 += v13; v7 = rotateRight(v7 ^ v8, 12);
        v2 += v7 + m16[m + 15]; v13 = rotateRight(v13 ^ v2, 8); v8 += v13; v7 = rotateRight(v7 ^ v8, 7);
        v3 += v4 + m16[m + 8]; v14 = rotateRight(v14 ^ v3, 16); v9 += v14; v4 = rotateRight(v4 ^ v9, 12);
        v3 += v4 + m16[m + 1]; v14 = rotateRight(v14 ^ v3, 8); v9 += v14; v4 = rotateRight(v4 ^ v9, 7);
        // round 4: the message words permuted 3 times
        v0 += v4 + m16[m + 10]; v12 = rotateRight(v12 ^ v0, 16); v8 += v12; v4 = rotateRight(v4 ^ v8, 12);
        v0 += v4 + m16[m + 7]; v12 = rotateRight(v12 ^ v0, 8); v8 += v12; v4 = rotateRight(v4 ^ v8, 7);
        v1 += v5 + m16[m + 12]; v13 = rotateRight(v13 ^ v1, 16); v9 += v13; v5 = rotateRight(v5 ^ v9, 12);
        v1 += v5 + m16[m + 9]; v13 = rotateRight(v13 ^ v1, 8); v9 += v13; v5 = rotateRight(v5 ^ v9, 7);
        v2 += v6 + m16[m + 14]; v14 = rotateRight(v14 ^ v2, 16); v10 += v14; v6 = rotateRight(v6 ^ v10, 12);
        v2 += v6 + m16[m + 3]; v14 = rotateRight(v14 ^ v2, 8); v10 += v14; v6 = rotateRight(v6 ^ v10, 7);
        v3 += v7 + m16[m + 13]; v15 = rotateRight(v15 ^ v3, 16); v11 += v15; v7 = rotateRight(v7 ^ v11, 12);
        v3 += v7 + m16[m + 15]; v15 = rotateRight(v15 ^ v3, 8); v11 += v15; v7 = rotateRight(v7 ^ v11, 7);
        v0 += v5 + m16[m + 4]; v15 = rotateRight(v15 ^ v0, 16); v10 += v15; v5 = rotateRight(v5 ^ v10, 12);
        v0 += v5 + m16[m]; v15 = rotateRight(v15 ^ v0, 8); v10 += v15; v5 = rotateRight(v5 ^ v10, 7);
        v1 += v6 + m16[m + 11]; v12 = rotateRight(v12 ^ v1, 16); v11 += v12; v6 = rotateRight(v6 ^ v11, 12);
        v1 += v6 + m16[m + 2]; v12 = rotateRight(v12 ^ v1, 8); v11 += v12; v6 = rotateRight(v6 ^ v11, 7);
        v2 += v7 + m16[m + 5]; v13 = rotateRight(v13 ^ v2, 16); v8 += v13; v7 = rotateRight(v7 ^ v8, 12);
        v2 += v7 + m16[m + 8]; v13 = rotateRight(v13 ^ v2, 8); v8 += v13; v7 = rotateRight(v7 ^ v8, 7);
        v3 += v4 + m16[m + 1]; v14 = rotateRight(v14 ^ v3, 16); v9 += v14; v4 = rotateRight(v4 ^ v9, 12);
        v3 += v4 + m16[m + 6]; v14 = rotateRight(v14 ^ v3, 8); v9 += v14; v4 = rotateRight(v4 ^ v9, 7);
        // round 5: the message words permuted 4 times
        v0 += v4 + m16[m + 12]; v12 = rotateRight(v12 ^ v0, 16); v8 += v12; v4 = rotateRight(v4 ^ v8, 12);
        v0 += v4 + m16[m + 13]; v12 = rotateRight(v12 ^ v0, 8); v8 += v12; v4 = rotateRight(v4 ^ v8, 7);
        v1 += v5 + m16[m + 9]; v13 = rotateRight(v13 ^ v1, 16); v9 += v13; v5 = rotateRight(v5 ^ v9, 12);
        v1 += v5 + m16[m + 11]; v13 = rotateRight(v13 ^ v1, 8); v9 += v13; v5 = rotateRight(v5 ^ v9, 7);
        v2 += v6 + m16[m + 15]; v14 = rotateRight(v14 ^ v2, 16); v10 += v14; v6 = rotateRight(v6 ^ v10, 12);
        v2 += v6 + m16[m + 10]; v14 = rotateRight(v14 ^ v2, 8); v10 += v14; v6 = rotateRight(v6 ^ v10, 7);
        v3 += v7 + m16[m + 14]; v15 = rotateRight(v15 ^ v3, 16); v11 += v15; v7 = rotateRight(v7 ^ v11, 12);
        v3 += v7 + m16[m + 8]; v15 = rotateRight(v15 ^ v3, 8); v11 += v15; v7 = rotateRight(v7 ^ v11, 7);
        v0 += v5 + m16[m + 7]; v15 = rotateRight(v15 ^ v0, 16); v10 += v15; v5 = rotateRight(v5 ^ v10, 12);
        v0 += v5 + m16[m + 2]; v15 = rotateRight(v15 ^ v0, 8); v10 += v15; v5 = rotateRight(v5 ^ v10, 7);
        v1 += v6 + m16[m + 5]; v12 = rotateRight(v12 ^ v1, 16); v11 += v12; v6 = rotateRight(v6 ^ v11, 12);
        v1 += v6 + m16[m + 3]; v12 = rotateRight(v12 ^ v1, 8); v11 += v12; v6 = rotateRight(v6 ^ v11, 7);
        v2 += v7 + m16[m]; v13 = rotateRight(v13 ^ v2, 16); v8 += v13; v7 = rotateRight(v7 ^ v8, 12);
        v2 += v7 + m16[m + 1]; v13 = rotateRight(v13 ^ v2, 8); v8 += v13; v7 = rotateRight(v7 ^ v8, 7);
        v3 += v4 + m16[m + 6]; v14 = rotateRight(v14 ^ v3, 16); v9 += v14; v4 = rotateRight(v4 ^ v9, 12);
        v3 += v4 + m16[m + 4]; v14 = rotateRight(v14 ^ v3, 8); v9 += v14; v4 = rotateRight(v4 ^ v9, 7);
        // round 6: the message words permuted 5 times
        v0 += v4 + m16[m + 9]; v12 = rotateRight(v12 ^ v0, 16); v8 += v12; v4 = rotateRight(v4 ^ v8, 12);
        v0 += v4 + m16[m + 14]; v12 = rotateRight(v12 ^ v0, 8); v8 += v12; v4 = rotateRight(v4 ^ v8, 7);
        v1 += v5 + m16[m + 11]; v13 = rotateRight(v13 ^ v1, 16); v9 += v13; v5 = rotateRight(v5 ^ v9, 12);
        v1 += v5 + m16[m + 5]; v13 = rotateRight(v13 ^ v1, 8); v9 += v13; v5 = rotateRight(v5 ^ v9, 7);
        v2 += v6 + m16[m + 8]; v14 = rotateRight(v14 ^ v2, 16); v10 += v14; v6 = rotateRight(v6 ^ v10, 12);
        v2 += v6 + m16[m + 12]; v14 = rotateRight(v14 ^ v2, 8); v10 += v14; v6 = rotateRight(v6 ^ v10, 7);
        v3 += v7 + m16[m + 15]; v15 = rotateRight(v15 ^ v3, 16); v11 += v15; v7 = rotateRight(v7 ^ v11, 12);
        v3 += v7 + m16[m + 1]; v15 = rotateRight(v15 ^ v3, 8); v11 += v15; v7 = rotateRight(v7 ^ v11, 7);
        v0 += v5 + m16[m + 13]; v15 = rotateRight(v15 ^ v0, 16); v10 += v15; v5 = rotateRight(v5 ^ v10, 12);
        v0 += v5 + m16[m + 3]; v15 = rotateRight(v15 ^ v0, 8); v10 += v15; v5 = rotateRight(v5 ^ v10, 7);
        v1 += v6 + m16[m]; v12 = rotateRight(v12 ^ v1, 16); v11 += v12; v6 = rotateRight(v6 ^ v11, 12);
        v1 += v6 + m16[m + 10]; v12 = rotateRight(v12 ^ v1, 8); v11 += v12; v6 = rotateRight(v6 ^ v11, 7);
        v2 += v7 + m16[m + 2]; v13 = rotateRight(v13 ^ v2, 16); v8 += v13; v7 = rotateRight(v7 ^ v8, 12);
        v2 += v7 + m16[m + 6]; v13 = rotateRight(v13 ^ v2, 8); v8 += v13; v7 = rotateRight(v7 ^ v8, 7);
        v3 += v4 + m16[m + 4]; v14 = rotateRight(v14 ^ v3, 16); v9 += v14; v4 = rotateRight(v4 ^ v9, 12);
        v3 += v4 + m16[m + 7]; v14 = rotateRight(v14 ^ v3, 8); v9 += v14; v4 = rotateRight(v4 ^ v9, 7);
        // round 7: the message words permuted 6 times
        v0 += v4 + m16[m + 11]; v12 = rotateRight(v12 ^ v0, 16); v8 += v12; v4 = rotateRight(v4 ^ v8, 12);
        v0 += v4 + m16[m + 15]; v12 = rotateRight(v12 ^ v0, 8); v8 += v12; v4 = rotateRight(v4 ^ v8, 7);
        v1 += v5 + m16[m + 5]; v13 = rotateRight(v13 ^ v1, 16); v9 += v13; v5 = rotateRight(v5 ^ v9, 12);
        v1 += v5 + m16[m]; v13 = rotateRight(v13 ^ v1, 8); v9 += v13; v5 = rotateRight(v5 ^ v9, 7);
        v2 += v6 + m16[m + 1]; v14 = rotateRight(v14 ^ v2, 16); v10 += v14; v6 = rotateRight(v6 ^ v10, 12);
        v2 += v6 + m16[m + 9]; v14 = rotateRight(v14 ^ v2, 8); v10 += v14; v6 = rotateRight(v6 ^ v10, 7);
        v3 += v7 + m16[m + 8]; v15 = rotateRight(v15 ^ v3, 16); v11 += v15; v7 = rotateRight(v7 ^ v11, 12);
        v3 += v7 + m16[m + 6]; v15 = rotateRight(v15 ^ v3, 8); v11 += v15; v7 = rotateRight(v7 ^ v11, 7);
        v0 += v5 + m16[m + 14]; v15 = rotateRight(v15 ^ v0, 16); v10 += v15; v5 = rotateRight(v5 ^ v10, 12);
        v0 += v5 + m16[m + 10]; v15 = rotateRight(v15 ^ v0, 8); v10 += v15; v5 = rotateRight(v5 ^ v10, 7);
        v1 += v6 + m16[m + 2]; v12 = rotateRight(v12 ^ v1, 16); v11 += v12; v6 = rotateRight(v6 ^ v11, 12);
        v1 += v6 + m16[m + 12]; v12 = rotateRight(v12 ^ v1, 8); v11 += v12; v6 = rotateRight(v6 ^ v11, 7);
        v2 += v7 + m16[m + 3]; v13 = rotateRight(v13 ^ v2, 16); v8 += v13; v7 = rotateRight(v7 ^ v8, 12);
        v2 += v7 + m16[m + 4]; v13 = rotateRight(v13 ^ v2, 8); v8 += v13; v7 = rotateRight(v7 ^ v8, 7);
        v3 += v4 + m16[m + 7]; v14 = rotateRight(v14 ^ v3, 16); v9 += v14; v4 = rotateRight(v4 ^ v9, 12);
        v3 += v4 + m16[m + 13]; v14 = rotateRight(v14 ^ v3, 8); v9 += v14; v4 = rotateRight(v4 ^ v9, 7);
        out[o] = v0 ^ v8;
        out[o + 1] = v1 ^ v9;
        out[o + 2] = v2 ^ v10;
        out[o + 3] = v3 ^ v11;
        out[o + 4] = v4 ^ v12;
        out[o + 5] = v5 ^ v13;
        out[o + 6] = v6 ^ v14;
        out[o + 7] = v7 ^ v15;
    }
}
