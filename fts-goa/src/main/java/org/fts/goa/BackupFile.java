package org.fts.goa;

import org.fts.goa.intake.Encoding;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.zip.CRC32C;

import org.fts.log.AtomicFiles;

/**
 * A backup of a group's state ({@code fts backup}): the replica state a {@link Snapshot} holds, taken at one
 * position of the total order, with what an operator needs to check it before restoring it. Versioned and
 * checksummed: a damaged, truncated or foreign file is refused, naming it, never half restored.
 *
 * <pre>
 *   file   := MAGIC("FTSBACKUP") VERSION(1) group:utf taker:utf takenAt:long(ms) position:utf objectsDigest:utf
 *             length:int snapshot crc32c:int (over everything before it)
 * </pre>
 *
 * @param group the group it was taken from
 * @param taker the replica that took it
 * @param takenAtMillis when (the taker's clock, for operators only)
 * @param position where in the total order, in the binding's terms ({@code epoch/delivered})
 * @param objectsDigest SHA-256 of the objects' ids and states ({@link Snapshot#objectsDigest}): what a restored
 *                      group's objects must digest to
 * @param snapshot the state
 */
public record BackupFile(String group, String taker, long takenAtMillis, String position, String objectsDigest,
                         byte[] snapshot) {
    private static final byte[] MAGIC = "FTSBACKUP".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private static final int VERSION = 1;
    /** The name a backup file ends with. */
    public static final String SUFFIX = ".ftsbackup";

    /** The file's bytes, checksum included. */
    byte[] encode() {
        byte[] body = Encoding.bytes(snapshot.length + 256, out -> {
            out.write(MAGIC);
            out.writeByte(VERSION);
            out.writeUTF(group);
            out.writeUTF(taker);
            out.writeLong(takenAtMillis);
            out.writeUTF(position);
            out.writeUTF(objectsDigest);
            out.writeInt(snapshot.length);
            out.write(snapshot);
        });
        CRC32C crc = new CRC32C();
        crc.update(body);
        return ByteBuffer.allocate(body.length + 4).put(body).putInt((int) crc.getValue()).array();
    }

    /** Writes the backup to {@code file} whole or not at all ({@link AtomicFiles#replace}). */
    void writeTo(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        AtomicFiles.replace(file, ByteBuffer.wrap(encode()));
    }

    /**
     * Reads and checks a backup file: its format, version, checksum, and that its state parses and digests to what
     * it says.
     *
     * @throws IOException naming the file and what is wrong with it
     */
    public static BackupFile read(Path file) throws IOException {
        byte[] all = Files.readAllBytes(file);
        if (all.length < MAGIC.length + 5 || !Arrays.equals(all, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
            throw new IOException(file + " is not an FTS backup (it does not begin with FTSBACKUP)");
        }
        CRC32C crc = new CRC32C();
        crc.update(all, 0, all.length - 4);
        if ((int) crc.getValue() != ByteBuffer.wrap(all, all.length - 4, 4).getInt()) {
            throw new IOException(file + " is damaged: its checksum does not match (" + all.length + " bytes)");
        }
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(all, MAGIC.length, all.length - 4
                - MAGIC.length));
        int v = in.readByte();
        if (v != VERSION) {
            throw new IOException(file + " is a backup of format version " + v + "; this FTS reads " + VERSION);
        }
        BackupFile b;
        try {
            String group = in.readUTF();
            String taker = in.readUTF();
            long at = in.readLong();
            String position = in.readUTF();
            String digest = in.readUTF();
            int n = in.readInt();
            if (n < 0 || n > in.available()) {
                throw new IOException("a state of " + n + " bytes in " + in.available());
            }
            byte[] snapshot = new byte[n];
            in.readFully(snapshot);
            b = new BackupFile(group, taker, at, position, digest, snapshot);
        } catch (IOException e) {
            throw new IOException(file + " is malformed: " + e.getMessage(), e);
        }
        try {
            String actual = Snapshot.objectsDigest(b.snapshot());
            if (!actual.equals(b.objectsDigest())) {
                throw new IOException(file + ": its objects digest to " + actual + ", not the " + b.objectsDigest()
                        + " it records");
            }
        } catch (Snapshot.StateException e) {
            throw new IOException(file + " holds a state this FTS cannot read: " + e.getMessage(), e);
        }
        return b;
    }

    /** The number of objects the backup holds. */
    public int objects() {
        try {
            return Snapshot.objectCount(snapshot);
        } catch (Snapshot.StateException e) {
            throw new IllegalStateException("checked when read or taken", e);
        }
    }

    /** One line for operators. */
    public String describe() {
        return "group " + group + ", taken by " + taker + " at " + java.time.Instant.ofEpochMilli(takenAtMillis)
                + ", position " + position + ", " + objects() + " objects, " + snapshot.length
                + " bytes of state, objects digest " + objectsDigest;
    }
}
