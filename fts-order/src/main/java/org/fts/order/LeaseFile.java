package org.fts.order;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.CRC32C;

import org.fts.log.AtomicFiles;

/**
 * The longest read lease ({@code fts.reads.lease}) an incarnation of this replica may have granted, kept beside its
 * log ({@code lease.granted}, synced): a restarted incarnation holds its first recovery report that long, not only for
 * its own lease, so that a rolling restart that lowers the key cannot let a cut-off sequencer read under a grant the
 * predecessor made (docs/reads.md). Format: {@code "FTSL" version:u16 0:u16 nanos:u64 crc32c:u32} of the bytes
 * before. A file that is not such a record is refused naming it: a member that does not know what it promised must
 * not take part.
 */
final class LeaseFile {
    static final String NAME = "lease.granted";
    private static final byte[] MAGIC = {'F', 'T', 'S', 'L'};
    private static final int VERSION = 1;
    private static final int SIZE = 4 + 2 + 2 + 8 + 4;

    private final Path path;

    LeaseFile(Path dir) {
        this.path = dir.resolve(NAME);
    }

    /** The lease on record, in nanoseconds; 0 if none was ever recorded. */
    long read() throws IOException {
        if (!Files.exists(path)) {
            return 0;
        }
        byte[] bytes = Files.readAllBytes(path);
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (bytes.length != SIZE || !java.util.Arrays.equals(java.util.Arrays.copyOf(bytes, 4), MAGIC)) {
            throw new IOException(path + ": not an FTS lease record");
        }
        int version = b.getShort(4) & 0xffff;
        if (version != VERSION) {
            throw new IOException(path + ": format version " + version + ", this build reads " + VERSION);
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, SIZE - 4);
        if ((int) crc.getValue() != b.getInt(SIZE - 4)) {
            throw new IOException(path + ": checksum mismatch (a damaged lease record)");
        }
        long nanos = b.getLong(8);
        if (nanos < 0) {
            throw new IOException(path + ": a negative lease");
        }
        return nanos;
    }

    /** Records {@code nanos}, synced (the file and its directory) before it returns. */
    void write(long nanos) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(SIZE);
        b.put(MAGIC).putShort((short) VERSION).putShort((short) 0).putLong(nanos);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, SIZE - 4);
        b.putInt((int) crc.getValue());
        b.flip();
        AtomicFiles.replace(path, b, true);
    }
}
