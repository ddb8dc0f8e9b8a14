package org.fts.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.UUID;
import java.util.zip.CRC32C;

/**
 * The last index a log synced, written (not synced itself) after every sync, with the boot it was written in. After a
 * process crash (the same boot: the page cache survived) it says exactly which records were durable, so that damage
 * to one of them is told from a torn write. After a power loss (another boot) it may lag: the records' own
 * {@code synced} fields then bound it from below, and the batch synced last is unproven ({@link LogRecovery}).
 *
 * <pre>  mark := "FTSD" index:u64 boot:16 crc:u32      (CRC-32C of index and boot; boot: the kernel's boot id)</pre>
 *
 * A mark of the form before the boot id ({@code "FTSD" index:u64 crc:u32}) is read, as of an unknown boot.
 */
final class SyncMark implements AutoCloseable {
    private static final byte[] MAGIC = {'F', 'T', 'S', 'D'};
    private static final int SIZE = 32;
    private static final int OLD_SIZE = 16;
    /** Linux's id of the running boot: it changes with every boot, so with every power loss. */
    private static final Path BOOT_ID = Path.of("/proc/sys/kernel/random/boot_id");
    private static final byte[] THIS_BOOT = thisBoot();

    /** What a mark holds: the index, and whether it was written in this boot (so it is exact). */
    record Read(long index, boolean thisBoot) {
        static final Read NONE = new Read(-1, false);
    }

    private final FileChannel channel;
    private final ByteBuffer buffer = ByteBuffer.allocate(SIZE);

    SyncMark(Path file) throws IOException {
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
    }

    /** The mark in {@code file}, or {@link Read#NONE} if it holds none that verifies. */
    static Read read(Path file) throws IOException {
        if (!Files.exists(file)) {
            return Read.NONE;
        }
        byte[] b = Files.readAllBytes(file);
        if (b.length < OLD_SIZE || b[0] != MAGIC[0] || b[1] != MAGIC[1] || b[2] != MAGIC[2] || b[3] != MAGIC[3]) {
            return Read.NONE;
        }
        ByteBuffer bb = ByteBuffer.wrap(b);
        long index = bb.getLong(4);
        CRC32C c = new CRC32C();
        if (b.length >= SIZE) {
            c.update(b, 4, 24);
            if ((int) c.getValue() == bb.getInt(28)) {
                boolean same = THIS_BOOT != null && java.util.Arrays.equals(b, 12, 28, THIS_BOOT, 0, 16);
                return new Read(index, same);
            }
            c.reset();
        }
        c.update(b, 4, 8);
        return (int) c.getValue() == bb.getInt(12) ? new Read(index, false) : Read.NONE;
    }

    /** Records {@code index} (page cache only; {@code force}: synced too). */
    void write(long index, boolean force) throws IOException {
        write(index, THIS_BOOT, force);
    }

    /** Records {@code index} as written in the boot {@code boot} (16 bytes; null: unknown). */
    void write(long index, byte[] boot, boolean force) throws IOException {
        buffer.clear();
        buffer.put(MAGIC).putLong(index).put(boot == null ? new byte[16] : boot);
        CRC32C c = new CRC32C();
        c.update(buffer.array(), 4, 24);
        buffer.putInt((int) c.getValue()).flip();
        Segment.writeFully(channel, buffer, 0);
        if (force) {
            channel.force(false);
        }
    }

    /** This boot's id, 16 bytes, or null where the kernel does not tell it (every mark is then of another boot). */
    private static byte[] thisBoot() {
        try {
            UUID id = UUID.fromString(Files.readString(BOOT_ID, StandardCharsets.US_ASCII).trim());
            return ByteBuffer.allocate(16).putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits())
                    .array();
        } catch (IOException | IllegalArgumentException | SecurityException e) {
            return null;
        }
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
