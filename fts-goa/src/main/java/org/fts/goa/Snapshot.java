package org.fts.goa;

import org.fts.goa.intake.Encoding;
import org.fts.goa.intake.Membership;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.ReplyCache;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.fts.checkpoint.CheckpointableOperations;
import org.fts.checkpoint.InvalidState;
import org.fts.checkpoint.NoStateAvailable;
import org.omg.PortableServer.Servant;

/**
 * A replica's whole state at one position of the total order: the group reference's endpoints and version,
 * the reply cache, and every object's state ({@code get_state}), objects in id order. The encoding is
 * deterministic, so two replicas at the same position produce the same bytes (the state digest is their
 * SHA-256). Taken and installed only while no request executes (at a cut of the execution lanes).
 *
 * <pre>
 *   snapshot := VERSION(1) version:long endpoints:int utf* cache objects:int object*
 *   cache    := clock:long entries:int (client:utf retention:long kind:byte expires:long length:int body)*
 *               clients:int (client:utf runs:int (first:long last:long until:long)*)*      remembered ids
 *               (format 2 had tombstones:int (client:utf retention:long expires:long)* here; still read)
 *   object   := idLength:short id checkpointable:byte [stateLength:int state]
 * </pre>
 */
final class Snapshot {
    private static final int VERSION = 3;   // 2: the reply cache carries its tombstones; 3: its remembered ids

    /** A snapshot cannot be taken or installed; the message says which object and why. */
    static final class StateException extends Exception {
        StateException(String message) {
            super(message);
        }
    }

    private Snapshot() {
    }

    static byte[] take(Map<ObjectKey, Servant> objects, ReplyCache cache, Membership membership)
            throws StateException {
        List<ObjectKey> keys = sorted(objects.keySet());
        List<byte[]> states = new ArrayList<>();
        for (ObjectKey k : keys) {
            if (objects.get(k) instanceof CheckpointableOperations c) {
                try {
                    states.add(c.get_state());
                } catch (NoStateAvailable e) {
                    throw new StateException("object " + name(k) + " has no state available (NoStateAvailable)");
                }
            } else {
                states.add(null);
            }
        }
        Membership.Snapshot m = membership.current();
        return Encoding.bytes(4096, out -> {
            out.writeByte(VERSION);
            out.writeLong(m.version());
            out.writeInt(m.endpoints().size());
            for (String e : m.endpoints()) {
                out.writeUTF(e);
            }
            cache.writeTo(out);
            out.writeInt(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                out.writeShort(keys.get(i).id().length);
                out.write(keys.get(i).id());
                byte[] state = states.get(i);
                out.writeByte(state == null ? 0 : 1);
                if (state != null) {
                    out.writeInt(state.length);
                    out.write(state);
                }
            }
        });
    }

    /** A snapshot parsed whole, before anything is replaced. */
    private record Parsed(long version, List<String> endpoints, ReplyCache.Contents replies, List<ObjectKey> keys,
                          List<byte[]> states) {
    }

    private static Parsed parse(byte[] snapshot) throws StateException {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(snapshot));
            int v = in.readByte();
            if (v != VERSION && v != 2) {   // 2 is still read: its tombstones become remembered ids
                throw new StateException("state format version " + v + ", expected " + VERSION);
            }
            long version = in.readLong();
            List<String> endpoints = new ArrayList<>();
            for (int i = in.readInt(); i > 0; i--) {
                endpoints.add(in.readUTF());
            }
            ReplyCache.Contents replies = ReplyCache.read(in, v == 2);
            int n = in.readInt();
            List<ObjectKey> keys = new ArrayList<>();
            List<byte[]> states = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] id = new byte[in.readUnsignedShort()];
                in.readFully(id);
                keys.add(new ObjectKey(id));
                if (in.readByte() == 1) {
                    int length = in.readInt();
                    if (length < 0 || length > in.available()) {   // a damaged length allocates nothing
                        throw new StateException("object " + i + " announces " + length + " bytes of state in "
                                + in.available());
                    }
                    byte[] state = new byte[length];
                    in.readFully(state);
                    states.add(state);
                } else {
                    states.add(null);
                }
            }
            if (in.available() != 0) {
                throw new StateException(in.available() + " bytes after the last object's state");
            }
            return new Parsed(version, endpoints, replies, keys, states);
        } catch (IOException | RuntimeException e) {
            throw new StateException("truncated or malformed state: " + e);
        }
    }

    /**
     * Installs {@code snapshot}: first checks that it names exactly this replica's objects, then replaces the
     * membership, the reply cache and every object's state.
     */
    static void install(byte[] snapshot, Map<ObjectKey, Servant> objects, ReplyCache cache, Membership membership)
            throws StateException {
        Parsed p = parse(snapshot);
        setStates(p, objects);
        membership.restore(new Membership.Snapshot(p.version(), p.endpoints()));
        cache.replaceWith(p.replies());
    }

    /**
     * Restores a backup ({@link Backups}): replaces every object's state with {@code snapshot}'s, after checking
     * that it names exactly this replica's objects; the group reference stays this group's. The backup's replies
     * are adopted only by an empty cache ({@link ReplyCache#adoptIfEmpty}). Deterministic: every replica at the
     * same position does the same.
     */
    static void restoreObjects(byte[] snapshot, Map<ObjectKey, Servant> objects, ReplyCache cache)
            throws StateException {
        Parsed p = parse(snapshot);
        setStates(p, objects);
        cache.adoptIfEmpty(p.replies());
    }

    private static void setStates(Parsed p, Map<ObjectKey, Servant> objects) throws StateException {
        List<ObjectKey> keys = p.keys();
        checkSameObjects(keys, objects.keySet());
        for (int i = 0; i < keys.size(); i++) {   // refused before any state is replaced
            if (p.states().get(i) != null && !(objects.get(keys.get(i)) instanceof CheckpointableOperations)) {
                throw new StateException("object " + name(keys.get(i))
                        + " has state in the group but is not Checkpointable here");
            }
        }
        for (int i = 0; i < keys.size(); i++) {
            if (p.states().get(i) != null) {
                try {
                    ((CheckpointableOperations) objects.get(keys.get(i))).set_state(p.states().get(i));
                } catch (InvalidState e) {
                    throw new StateException("object " + name(keys.get(i)) + " refused its state: " + e.reason);
                }
            }
        }
    }

    /**
     * SHA-256 over the objects' ids and states only, in hex: what a backup carries from one group to another
     * (the whole-state {@link #digest} also covers the group reference and the reply cache).
     */
    static String objectsDigest(byte[] snapshot) throws StateException {
        Parsed p = parse(snapshot);
        return digest(Encoding.bytes(1024, out -> {
            out.writeInt(p.keys().size());
            for (int i = 0; i < p.keys().size(); i++) {
                out.writeShort(p.keys().get(i).id().length);
                out.write(p.keys().get(i).id());
                byte[] state = p.states().get(i);
                out.writeInt(state == null ? -1 : state.length);
                if (state != null) {
                    out.write(state);
                }
            }
        }));
    }

    /** The number of objects a snapshot holds ({@code fts backup}'s report). */
    static int objectCount(byte[] snapshot) throws StateException {
        return parse(snapshot).keys().size();
    }

    private static void checkSameObjects(List<ObjectKey> theirs, Set<ObjectKey> mine) throws StateException {
        Set<String> missing = new TreeSet<>();
        Set<String> extra = new TreeSet<>();
        theirs.forEach(k -> {
            if (!mine.contains(k)) {
                missing.add(name(k));
            }
        });
        Set<ObjectKey> t = Set.copyOf(theirs);
        mine.forEach(k -> {
            if (!t.contains(k)) {
                extra.add(name(k));
            }
        });
        if (!missing.isEmpty() || !extra.isEmpty()) {
            throw new StateException("the group's objects differ from this replica's: not activated here "
                    + missing + ", not in the group " + extra + " (every replica activates the same ids)");
        }
    }

    private static List<ObjectKey> sorted(Set<ObjectKey> keys) {
        List<ObjectKey> l = new ArrayList<>(keys);
        l.sort(Comparator.comparing(ObjectKey::id, java.util.Arrays::compareUnsigned));
        return l;
    }

    /** SHA-256 of a snapshot, in hex: equal for replicas at the same position of the order. */
    static String digest(byte[] snapshot) {
        try {
            return java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(snapshot));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** An object id as text when it is printable, else hex. */
    static String name(ObjectKey k) {
        String s = new String(k.id(), java.nio.charset.StandardCharsets.UTF_8);
        return s.chars().allMatch(c -> c >= 0x20 && c < 0x7f) ? "'" + s + "'" : k.toString();
    }
}
