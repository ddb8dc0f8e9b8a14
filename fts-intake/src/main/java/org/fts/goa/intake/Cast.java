package org.fts.goa.intake;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;

import org.fts.gc.MemberId;

/**
 * What a replica casts into the total order, one per message of a batch, each with its own type tag: a
 * client's {@link Invocation}, a replica's endpoint {@link Announce}ment, a {@link StateMarker}, an operator's
 * {@link Backup} or {@link Restore}, a replica's {@link ClockOffset} (the group's calendar) and {@link ReplyDigest}
 * (divergence caught while serving), and the group's move to a higher {@link WireUpgrade wire version}. Every replica delivers the same casts in the same order and acts on each alike.
 */
public sealed interface Cast permits Cast.Invocation, Cast.Announce, Cast.StateMarker, Cast.Backup, Cast.Restore,
        Cast.ClockOffset, Cast.ReplyDigest, Cast.Outcome, Cast.PositionBase, Cast.WireUpgrade {

    /** A client request captured by the replica that received it (stages 1-4). */
    record Invocation(Request request) implements Cast {
    }

    /** Replica {@code replica} serves at {@code endpoint}: every replica adds it to the group reference. */
    record Announce(String replica, String endpoint) implements Cast {
    }

    /**
     * {@code requester} asks {@code provider} for the group's state at this position of the order (the cut of
     * a state transfer); {@code nonce} names the attempt.
     */
    record StateMarker(String nonce, MemberId provider, MemberId requester) implements Cast {
    }

    /** {@code taker} copies the group's state at this position of the order to a backup file ({@link Backups}). */
    record Backup(String nonce, MemberId taker) implements Cast {
    }

    /**
     * Every replica replaces its objects' state with {@code snapshot}'s at this position of the order (a backup's,
     * {@link Backups}); unless {@code force}, only if its reply cache is empty (a group that answered no call
     * lately). {@code taker} asked and reports the outcome.
     */
    record Restore(String nonce, MemberId taker, boolean force, byte[] snapshot) implements Cast {
    }

    /**
     * Replica {@code replica}'s wall clock minus its estimate of the group's time, in ms: every replica feeds it to the
     * group's calendar at this position (the median of the replicas' latest offsets).
     */
    record ClockOffset(String replica, long offsetMillis) implements Cast {
    }

    /**
     * Member {@code member}'s replies (its name: replica id and incarnation) to the requests at positions
     * {@code window * hashes.length} onwards, one hash each: every replica compares its own with the group's at this
     * position of the order.
     */
    record ReplyDigest(String member, long window, int[] hashes) implements Cast {
    }

    /**
     * The outcome of call {@code call} a servant made to an object that is not a group ({@code fts.outcalls=ordered}):
     * the replica that made it casts the reply's kind and body, and every replica's servant goes on with them.
     */
    record Outcome(String call, Reply.Kind kind, byte[] body) implements Cast {
    }

    /**
     * Replica {@code replica} serves with no known position (its state came from a format before positions): every
     * replica whose position is unknown counts from 0 at this position of the order, so all count alike from here.
     */
    record PositionBase(String replica) implements Cast {
    }

    /**
     * Every replica moves the group to wire version {@code version} at this position of the order, if it is higher than
     * the group's (docs/upgrades.md): cast once every member of the view said it speaks it. A replica that does not
     * speak it cannot follow the group and stops.
     */
    record WireUpgrade(int version) implements Cast {
    }

    /*
     * Tags from 0x11: the casts of earlier versions began with a version byte 2, so an old cast is refused as
     * an unknown type instead of being misread. A new type or field comes behind a new wire version
     * (org.fts.gc.WireVersion, docs/upgrades.md): a replica sends it only once the group moved there.
     */
    byte INVOCATION = 0x11;
    byte ANNOUNCE = 0x12;
    byte STATE_MARKER = 0x13;
    byte BACKUP = 0x14;
    byte RESTORE = 0x15;
    byte CLOCK_OFFSET = 0x16;
    byte REPLY_DIGEST = 0x17;
    byte OUTCOME = 0x18;
    byte POSITION_BASE = 0x19;
    byte WIRE_UPGRADE = 0x1A;
    /** The most hashes one digest carries (fts.divergence.window's bound). */
    int MAX_DIGEST_HASHES = 4096;

    /** The wire form: the type tag, then the cast's fields. */
    static byte[] encode(Cast c) {
        if (c instanceof Invocation i) {
            return i.request().encode(INVOCATION);
        }
        return Encoding.bytes(64, out -> {
            if (c instanceof Announce a) {
                out.writeByte(ANNOUNCE);
                out.writeUTF(a.replica());
                out.writeUTF(a.endpoint());
            } else if (c instanceof StateMarker m) {
                out.writeByte(STATE_MARKER);
                out.writeUTF(m.nonce());
                out.writeUTF(m.provider().name());
                out.writeUTF(m.requester().name());
            } else if (c instanceof Backup b) {
                out.writeByte(BACKUP);
                out.writeUTF(b.nonce());
                out.writeUTF(b.taker().name());
            } else if (c instanceof ClockOffset o) {
                out.writeByte(CLOCK_OFFSET);
                out.writeUTF(o.replica());
                out.writeLong(o.offsetMillis());
            } else if (c instanceof ReplyDigest d) {
                out.writeByte(REPLY_DIGEST);
                out.writeUTF(d.member());
                out.writeLong(d.window());
                out.writeShort(d.hashes().length);
                for (int h : d.hashes()) {
                    out.writeInt(h);
                }
            } else if (c instanceof PositionBase b) {
                out.writeByte(POSITION_BASE);
                out.writeUTF(b.replica());
            } else if (c instanceof WireUpgrade w) {
                out.writeByte(WIRE_UPGRADE);
                out.writeByte(w.version());
            } else if (c instanceof Outcome o) {
                out.writeByte(OUTCOME);
                out.writeUTF(o.call());
                out.writeByte(o.kind().ordinal());
                out.writeInt(o.body().length);
                out.write(o.body());
            } else {
                Restore r = (Restore) c;
                out.writeByte(RESTORE);
                out.writeUTF(r.nonce());
                out.writeUTF(r.taker().name());
                out.writeBoolean(r.force());
                out.writeInt(r.snapshot().length);
                out.write(r.snapshot());
            }
        });
    }

    /** Parses a wire form; {@link IllegalArgumentException} if it is not one. */
    static Cast decode(byte[] data) {
        if (data.length == 0) {
            throw new IllegalArgumentException("an empty cast");
        }
        if (data[0] == INVOCATION) {
            return new Invocation(Request.decode(data, 1));
        }
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data, 1, data.length - 1));
            Cast c;
            switch (data[0]) {
                case ANNOUNCE:
                    c = new Announce(in.readUTF(), in.readUTF());
                    break;
                case STATE_MARKER:
                    c = new StateMarker(in.readUTF(), new MemberId(in.readUTF()), new MemberId(in.readUTF()));
                    break;
                case BACKUP:
                    c = new Backup(in.readUTF(), new MemberId(in.readUTF()));
                    break;
                case RESTORE:
                    c = restore(in, data.length);
                    break;
                case CLOCK_OFFSET:
                    c = new ClockOffset(in.readUTF(), in.readLong());
                    break;
                case REPLY_DIGEST:
                    c = digest(in);
                    break;
                case OUTCOME:
                    c = outcome(in, data.length);
                    break;
                case POSITION_BASE:
                    c = new PositionBase(in.readUTF());
                    break;
                case WIRE_UPGRADE:
                    c = new WireUpgrade(in.readUnsignedByte());
                    break;
                default:
                    throw new IllegalArgumentException("unknown cast type " + data[0] + " ("
                            + Arrays.toString(Arrays.copyOf(data, Math.min(8, data.length))) + "...)");
            }
            if (in.available() != 0) {
                throw new IllegalArgumentException(in.available() + " bytes after a cast of type " + data[0]);
            }
            return c;
        } catch (IOException e) {
            throw new IllegalArgumentException("truncated cast: " + e.getMessage());
        }
    }

    private static ReplyDigest digest(DataInputStream in) throws IOException {
        String replica = in.readUTF();
        long window = in.readLong();
        int n = in.readUnsignedShort();
        if (n == 0 || n > MAX_DIGEST_HASHES) {
            throw new IllegalArgumentException("a reply digest of " + n + " hashes");
        }
        int[] hashes = new int[n];
        for (int i = 0; i < n; i++) {
            hashes[i] = in.readInt();
        }
        return new ReplyDigest(replica, window, hashes);
    }

    private static Outcome outcome(DataInputStream in, int castLength) throws IOException {
        String call = in.readUTF();
        int kind = in.readUnsignedByte();
        if (kind >= Reply.Kind.values().length) {
            throw new IllegalArgumentException("an outcome of kind " + kind);
        }
        int n = in.readInt();
        if (n < 0 || n > castLength) {
            throw new IllegalArgumentException("an outcome announcing " + n + " bytes in " + castLength);
        }
        byte[] body = new byte[n];
        in.readFully(body);
        return new Outcome(call, Reply.Kind.values()[kind], body);
    }

    private static Restore restore(DataInputStream in, int castLength) throws IOException {
        String nonce = in.readUTF();
        MemberId taker = new MemberId(in.readUTF());
        boolean force = in.readBoolean();
        int n = in.readInt();
        if (n < 0 || n > castLength) {
            throw new IllegalArgumentException("a restore cast announcing " + n + " bytes of state in " + castLength);
        }
        byte[] snapshot = new byte[n];
        in.readFully(snapshot);
        return new Restore(nonce, taker, force, snapshot);
    }
}
