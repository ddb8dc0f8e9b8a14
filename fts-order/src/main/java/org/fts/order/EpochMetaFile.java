package org.fts.order;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import org.fts.gc.MemberId;
import org.fts.order.DurableLog.EpochMeta;

/**
 * The small file that holds a member's {@link EpochMeta}, replaced atomically: written to a temporary file,
 * synced, renamed into place, the directory synced. A crash leaves the old meta or the new one.
 *
 * <pre>
 *   meta := "FTSM" version:u16 reserved:u16 length:u32 crc:u32 body{length}
 *   body := promised:u64 epochBallot:u64 epochView:u64 founding:u8 seq:name members:u32 name* start:u64
 *           links:u8 (view:u64 seq:name ballot:u64 upTo:u64)*                  (name: u8 + UTF-8; none: length 0)
 * </pre>
 * A file that is not such a meta, or of another version, or whose checksum fails, is refused naming it: a member
 * that does not know what it promised must not take part.
 */
final class EpochMetaFile {
    static final int VERSION = 2;
    private static final byte[] MAGIC = {'F', 'T', 'S', 'M'};

    private final Path path;

    EpochMetaFile(Path path) {
        this.path = path;
    }

    Path path() {
        return path;
    }

    EpochMeta read() throws IOException {
        if (!Files.exists(path)) {
            return EpochMeta.NONE;
        }
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(path));
        try {
            byte[] magic = new byte[4];
            b.get(magic);
            int version = b.getShort() & 0xffff;
            b.getShort();
            if (!java.util.Arrays.equals(magic, MAGIC)) {
                throw new IOException(path + ": not an FTS epoch meta file");
            }
            if (version != VERSION) {
                throw new IOException(path + ": format version " + version + ", this build reads " + VERSION);
            }
            int length = b.getInt();
            int crc = b.getInt();
            byte[] body = new byte[length];
            b.get(body);
            CRC32C c = new CRC32C();
            c.update(body);
            if ((int) c.getValue() != crc) {
                throw new IOException(path + ": checksum mismatch");
            }
            ByteBuffer m = ByteBuffer.wrap(body);
            long promised = m.getLong();
            long ballot = m.getLong();
            long view = m.getLong();
            boolean founding = m.get() != 0;
            MemberId seq = name(m);
            int n = m.getInt();
            List<MemberId> members = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                members.add(name(m));
            }
            long start = m.getLong();
            return new EpochMeta(promised, ballot, view, seq, founding, members, start, WireFields.readLinks(m));
        } catch (java.nio.BufferUnderflowException e) {
            throw new IOException(path + ": cut short", e);
        }
    }

    void write(EpochMeta meta) throws IOException {
        ByteBuffer body = ByteBuffer.allocate(4096);
        body.putLong(meta.promised()).putLong(meta.epochBallot()).putLong(meta.epochView())
                .put((byte) (meta.founding() ? 1 : 0));
        putName(body, meta.epochSeq());
        body.putInt(meta.members().size());
        meta.members().forEach(m -> putName(body, m));
        body.putLong(meta.start());
        WireFields.putLinks(body, meta.lineage());
        body.flip();
        byte[] bytes = new byte[body.remaining()];
        body.get(bytes);
        CRC32C c = new CRC32C();
        c.update(bytes);
        ByteBuffer file = ByteBuffer.allocate(16 + bytes.length).put(MAGIC).putShort((short) VERSION)
                .putShort((short) 0).putInt(bytes.length).putInt((int) c.getValue()).put(bytes);
        file.flip();
        org.fts.log.AtomicFiles.replace(path, file);
    }

    private static void putName(ByteBuffer b, MemberId m) {
        byte[] n = m == null ? new byte[0] : m.name().getBytes(StandardCharsets.UTF_8);
        b.put((byte) n.length).put(n);
    }

    private static MemberId name(ByteBuffer b) {
        byte[] n = new byte[b.get() & 0xff];
        b.get(n);
        return n.length == 0 ? null : new MemberId(new String(n, StandardCharsets.UTF_8));
    }
}
