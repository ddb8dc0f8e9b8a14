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
 * the reply cache, the position and the calendar ({@link ExecutionRecord}), and every object's id, type and state
 * ({@code get_state}), objects in id order. The encoding is deterministic, so two replicas at the same position
 * produce the same bytes (the state digest is their SHA-256). Taken and installed only while no request executes
 * (at a cut of the execution lanes).
 *
 * <pre>
 *   snapshot := VERSION(1) version:long endpoints:int utf* cache [execution] objects:int object*
 *   cache    := clock:long entries:int (client:utf retention:long kind:byte expires:long length:int body)*
 *               clients:int (client:utf runs:int (first:long last:long until:long)*)*      remembered ids
 *               (format 2 had tombstones:int (client:utf retention:long expires:long)* here; still read)
 *   execution:= position:long calendarLast:long offsets:int (replica:utf offset:long)*     (from format 4)
 *               wire:byte                                     the group's wire version (from format 5)
 *   object   := idLength:short id [type:utf] checkpointable:byte [stateLength:int state]  (type from format 4)
 * </pre>
 */
final class Snapshot {
    // 2: the reply cache carries its tombstones; 3: its remembered ids; 4: the execution record and each object's type;
    // 5: the group's wire version (docs/upgrades.md)
    private static final int VERSION = 5;

    /** A snapshot cannot be taken or installed; the message says which object and why. */
    static class StateException extends Exception {
        StateException(String message) {
            super(message);
        }
    }

    /** A state at a wire version this build does not speak: the replica cannot follow its group (docs/upgrades.md). */
    static final class WireException extends StateException {
        final int version;

        WireException(int version) {
            super("the group's state is at wire version " + version + ", and this build speaks "
                    + org.fts.gc.WireVersion.describe());
            this.version = version;
        }
    }

    private Snapshot() {
    }

    /** What a snapshot is taken from and installed into: everything a replica holds of the group's state. */
    record Parts(ObjectTable objects, ReplyCache cache, Membership membership, ExecutionRecord record) {
    }

    static byte[] take(Parts parts) throws StateException {
        Map<ObjectKey, Servant> objects = parts.objects().servants();
        ReplyCache cache = parts.cache();
        Membership membership = parts.membership();
        List<ObjectKey> keys = sorted(objects.keySet());
        List<String> types = new ArrayList<>();
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
            String type = parts.objects().type(k);
            types.add(type == null ? "" : type);
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
            parts.record().writeTo(out);
            out.writeInt(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                out.writeShort(keys.get(i).id().length);
                out.write(keys.get(i).id());
                out.writeUTF(types.get(i));
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
    private record Parsed(int format, long version, List<String> endpoints, ReplyCache.Contents replies,
                          ExecutionRecord.Contents execution, List<ObjectKey> keys, List<String> types,
                          List<byte[]> states) {
    }

    private static Parsed parse(byte[] snapshot) throws StateException {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(snapshot));
            int v = in.readByte();
            if (v < 2 || v > VERSION) {   // 2 is still read: its tombstones become remembered ids
                throw new StateException("state format version " + v + ", expected " + VERSION);
            }
            long version = in.readLong();
            List<String> endpoints = new ArrayList<>();
            for (int i = in.readInt(); i > 0; i--) {
                endpoints.add(in.readUTF());
            }
            ReplyCache.Contents replies = ReplyCache.read(in, v == 2);
            ExecutionRecord.Contents execution = v >= 4 ? ExecutionRecord.Contents.read(in, v)
                    : ExecutionRecord.Contents.UNKNOWN;
            int n = in.readInt();
            List<ObjectKey> keys = new ArrayList<>();
            List<String> types = new ArrayList<>();
            List<byte[]> states = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                byte[] id = new byte[in.readUnsignedShort()];
                in.readFully(id);
                keys.add(new ObjectKey(id));
                types.add(v >= 4 ? in.readUTF() : "");   // before 4: no types, no objects made while serving
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
            return new Parsed(v, version, endpoints, replies, execution, keys, types, states);
        } catch (IOException | RuntimeException e) {
            throw new StateException("truncated or malformed state: " + e);
        }
    }

    /**
     * Installs {@code snapshot}: makes the object table the group's (incarnating what is missing here through the
     * server's servant activator, dropping what the group destroyed; refused whole if a servant cannot be made), then
     * replaces every object's state, the membership, the reply cache and the execution record.
     */
    static void install(byte[] snapshot, Parts parts) throws StateException {
        Parsed p = parse(snapshot);
        if (!org.fts.gc.WireVersion.speaks(p.execution().wire())) {   // not for a backup's objects: restoreObjects
            throw new WireException(p.execution().wire());
        }
        setStates(p, parts);
        parts.membership().restore(new Membership.Snapshot(p.version(), p.endpoints()));
        parts.cache().replaceWith(p.replies());
        parts.record().replaceWith(p.execution());
    }

    /**
     * Restores a backup ({@link Backups}): makes the object table the backup's and replaces every object's state with
     * its; the group reference, the position and the calendar stay this group's (its time never goes back). The
     * backup's replies are adopted only by an empty cache ({@link ReplyCache#adoptIfEmpty}). Deterministic: every
     * replica at the same position does the same.
     */
    static void restoreObjects(byte[] snapshot, Parts parts) throws StateException {
        Parsed p = parse(snapshot);
        setStates(p, parts);
        parts.cache().adoptIfEmpty(p.replies());
    }

    private static void setStates(Parsed p, Parts parts) throws StateException {
        List<ObjectKey> keys = p.keys();
        if (p.format() < 4) {
            checkSameObjects(keys, parts.objects().servants().keySet());   // before format 4: the same objects only
        }
        prepared(p, parts.objects().servants());   // refused before the table changes
        java.util.Set<ObjectKey> stateful = new java.util.HashSet<>();
        for (int i = 0; i < keys.size(); i++) {
            if (p.states().get(i) != null) {
                stateful.add(keys.get(i));
            }
        }
        parts.objects().becomeExactly(keys, p.types(), stateful);
        Map<ObjectKey, Servant> objects = parts.objects().servants();
        for (int i = 0; i < keys.size(); i++) {
            if (p.states().get(i) != null) {
                if (!(objects.get(keys.get(i)) instanceof CheckpointableOperations c)) {
                    throw new StateException("object " + name(keys.get(i)) + " has state in the group, but the servant "
                            + "the servant activator made is not Checkpointable");
                }
                try {
                    c.set_state(p.states().get(i));
                } catch (InvalidState e) {
                    throw new StateException("object " + name(keys.get(i)) + " refused its state: " + e.reason);
                }
            }
        }
    }

    /** Refuses a state an object here could not take, before anything changes. */
    private static void prepared(Parsed p, Map<ObjectKey, Servant> objects) throws StateException {
        for (int i = 0; i < p.keys().size(); i++) {
            Servant s = objects.get(p.keys().get(i));
            if (s != null && p.states().get(i) != null && !(s instanceof CheckpointableOperations)) {
                throw new StateException("object " + name(p.keys().get(i))
                        + " has state in the group but is not Checkpointable here");
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
