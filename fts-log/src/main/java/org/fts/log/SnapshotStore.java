package org.fts.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Snapshots of a replica's state, each taken at a log index, in a directory: written to a temporary file,
 * synced, renamed into place and the directory synced, so a crash leaves the previous snapshot or the new one,
 * never half of one. The two newest are kept.
 *
 * <pre>
 *   snapshot := "FTSS" version:u16 reserved:u16 index:u64 length:u64 crc:u32 payload{length}   (big-endian)
 * </pre>
 *
 * <p>Guarantees: {@link #latest} returns the newest snapshot whose checksum holds; a damaged newer one is
 * skipped with a warning naming it (the previous one serves, and the log replays from there). If snapshots
 * exist and none is readable, it fails naming them rather than pretend there is none; one in a format version
 * this build does not read is refused, naming it. Not thread-safe.
 */
public final class SnapshotStore {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotStore.class);
    static final int VERSION = 1;
    private static final int HEADER = 4 + 2 + 2 + 8 + 8 + 4;
    private static final byte[] MAGIC = {'F', 'T', 'S', 'S'};
    private static final int KEEP = 2;

    /** A snapshot: the state after the record at {@code index} was applied. */
    public record Snapshot(long index, byte[] payload, Path path) {
    }

    private final Path dir;

    public SnapshotStore(Path dir) throws IOException {
        this.dir = AtomicFiles.createDirectories(dir);
    }

    static String fileName(long index) {
        return String.format("%020d.snap", index);
    }

    /** Writes the snapshot at {@code index} durably, then deletes all but the two newest. */
    public Path write(long index, byte[] payload) throws IOException {
        Path target = dir.resolve(fileName(index));
        CRC32C crc = new CRC32C();
        crc.update(payload);
        ByteBuffer b = ByteBuffer.allocate(HEADER + payload.length).put(MAGIC).putShort((short) VERSION)
                .putShort((short) 0).putLong(index).putLong(payload.length).putInt((int) crc.getValue())
                .put(payload).flip();
        AtomicFiles.replace(target, b);
        List<Path> all = files();
        for (int i = KEEP; i < all.size(); i++) {
            Files.delete(all.get(i));
        }
        return target;
    }

    /** The newest readable snapshot, if any (see the class comment). */
    public Optional<Snapshot> latest() throws IOException {
        List<Path> all = files();
        List<String> damaged = new ArrayList<>();
        for (Path p : all) {
            String why = null;
            try {
                Snapshot s = read(p);
                if (s != null) {
                    return Optional.of(s);
                }
                why = "its checksum or framing does not hold";
            } catch (FormatException e) {
                throw e;   // written by another version: refused, not skipped
            } catch (IOException e) {
                why = e.getMessage();
            }
            damaged.add(p + " (" + why + ")");
            LOG.warn("{}: snapshot unreadable ({}); falling back to an older one", p, why);
        }
        if (!damaged.isEmpty()) {
            throw new IOException("no readable snapshot in " + dir + ": " + String.join("; ", damaged));
        }
        return Optional.empty();
    }

    /** The snapshot files, newest first (leftover temporary files are not snapshots). */
    public List<Path> files() throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.snap")) {
            ds.forEach(out::add);
        }
        out.sort(Comparator.comparing(Path::toString).reversed());
        return out;
    }

    /** Reads one snapshot: null if its checksum or framing fails; throws naming it for a version it cannot read. */
    private static Snapshot read(Path p) throws IOException {
        byte[] all = Files.readAllBytes(p);
        if (all.length < HEADER) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(all);
        byte[] magic = new byte[4];
        b.get(magic);
        int version = b.getShort() & 0xffff;
        b.getShort();
        long index = b.getLong();
        long length = b.getLong();
        int crc = b.getInt();
        if (!java.util.Arrays.equals(magic, MAGIC)) {
            return null;
        }
        if (version != VERSION) {
            throw new FormatException(p + ": FTS snapshot format version " + version + "; this build reads version "
                    + VERSION + " only");
        }
        if (length != all.length - HEADER) {
            return null;
        }
        byte[] payload = java.util.Arrays.copyOfRange(all, HEADER, all.length);
        CRC32C c = new CRC32C();
        c.update(payload);
        return (int) c.getValue() == crc ? new Snapshot(index, payload, p) : null;
    }

    /** A file in a format version this build does not read. */
    static final class FormatException extends IOException {
        FormatException(String message) {
            super(message);
        }
    }

}
