package org.fts.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * The last index a log synced, written (not synced itself) after every sync: after a process crash it says exactly
 * which records were durable, so that damage to one of them is told from a torn write. After a power loss it may lag
 * (the records' own {@code synced} fields then bound it from below).
 *
 * <pre>  mark := "FTSD" index:u64 crc:u32      (CRC-32C of the index)</pre>
 */
final class SyncMark implements AutoCloseable {
    private static final byte[] MAGIC = {'F', 'T', 'S', 'D'};
    private static final int SIZE = 16;

    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(SIZE);

    SyncMark(Path file) throws IOException {
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** The index it holds, or -1 if it holds none that verifies. */
    static long read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return -1;
        }
        byte[] b = Files.readAllBytes(file);
        if (b.length < SIZE || b[0] != MAGIC[0] || b[1] != MAGIC[1] || b[2] != MAGIC[2] || b[3] != MAGIC[3]) {
            return -1;
        }
        ByteBuffer bb = ByteBuffer.wrap(b);
        long index = bb.getLong(4);
        CRC32C c = new CRC32C();
        c.update(b, 4, 8);
        return (int) c.getValue() == bb.getInt(12) ? index : -1;
    }

    /** Records {@code index} (page cache only; {@code force}: synced too). */
    void write(long index, boolean force) throws IOException {
        buffer.clear();
        buffer.put(MAGIC).putLong(index);
        CRC32C c = new CRC32C();
        c.update(buffer.array(), 4, 8);
        buffer.putInt((int) c.getValue()).flip();
        Segment.writeFully(channel, buffer, 0);
        if (force) {
            channel.force(false);
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
