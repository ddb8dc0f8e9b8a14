package org.fts.goa;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.fts.checkpoint.CheckpointableOperations;
import org.fts.config.ConfigKey;
import org.fts.goa.intake.ObjectKey;
import org.fts.goa.intake.References;
import org.omg.CORBA.BAD_INV_ORDER;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.CompletionStatus;
import org.omg.CORBA.NO_RESOURCES;
import org.omg.CORBA.portable.InvokeHandler;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAPackage.ObjectAlreadyActive;
import org.omg.PortableServer.POAPackage.ObjectNotActive;
import org.omg.PortableServer.POAPackage.ServantAlreadyActive;
import org.omg.PortableServer.Servant;
import org.omg.PortableServer.ServantActivator;

/**
 * The group's objects: each id's servant and type (its repository id). Replicated state: objects activated before the
 * POA manager (the server's own, the same on every replica) and objects activated or deactivated by an ordered
 * request (every replica executes it at the same position, so every replica's table changes alike). A snapshot
 * carries every id and type ({@link Snapshot}); a replica whose table lacks an object of the group's incarnates it
 * through the server's {@link ServantActivator} (the POA's own idiom for servants made on demand), and drops what the
 * group destroyed.
 *
 * <p>Guarantees: once the replica serves, the table changes only inside an ordered request (a change from any other
 * thread is refused with {@code BAD_INV_ORDER}, as it would make this replica's objects differ from the group's);
 * the table never holds more than {@code fts.objects.max} objects (a create past it gets {@code NO_RESOURCES}, the
 * same at every replica, so the request's reply is the same everywhere).
 */
final class ObjectTable {
    static final ConfigKey<Integer> MAX = ConfigKey.integer("fts.objects.max", 1_000_000, 1, Integer.MAX_VALUE,
            "objects", "most objects the group holds, those activated at start and those created by requests; a "
                    + "create past it is refused with NO_RESOURCES (COMPLETED_YES for the request that tried), the same "
                    + "on every replica");
    static final List<ConfigKey<?>> KEYS = List.of(MAX);

    private final Map<ObjectKey, Servant> servants = new ConcurrentHashMap<>();
    private final Map<ObjectKey, String> types = new ConcurrentHashMap<>();
    private final Map<Servant, ObjectKey> ids = new ConcurrentHashMap<>();
    private final int max;
    private final boolean oneLane;
    private final org.omg.CORBA_2_3.ORB orb;
    private final POA adapter;
    private volatile ServantActivator activator;
    /** Set when the POA manager is activated: from then on, only ordered requests change the table. */
    private volatile boolean serving;
    private volatile java.util.Set<ObjectKey> serversOwn;

    /**
     * @param adapter the group adaptor (what servants' {@code _all_interfaces} and {@code incarnate} are given)
     * @param oneLane executions run on one lane ({@code fts.pool.background=1}): requests may change the table
     */
    ObjectTable(org.omg.CORBA.ORB orb, POA adapter, int max, boolean oneLane) {
        this.orb = (org.omg.CORBA_2_3.ORB) orb;
        this.adapter = adapter;
        this.max = max;
        this.oneLane = oneLane;
    }

    /** The servants by id: what the request path reads (live, never copied). */
    Map<ObjectKey, Servant> servants() {
        return servants;
    }

    /** {@code key}'s repository id, or null if there is no such object. */
    String type(ObjectKey key) {
        return types.get(key);
    }

    ObjectKey id(Servant s) {
        return ids.get(s);
    }

    /** The server's servant activator: how a replica makes a servant for an object the group created. */
    void activator(ServantActivator a) {
        this.activator = a;
    }

    ServantActivator activator() {
        return activator;
    }

    /** The POA manager was activated: from now on the table is the group's, changed by ordered requests only. */
    void serving() {
        if (!serving) {
            serversOwn = java.util.Set.copyOf(servants.keySet());
        }
        serving = true;
    }

    /** The objects the server activated before its POA manager (those bound in a naming service), not requests'. */
    java.util.Set<ObjectKey> serversOwn() {
        java.util.Set<ObjectKey> own = serversOwn;
        return own == null ? java.util.Set.copyOf(servants.keySet()) : own;
    }

    /** {@code activate_object_with_id}: refused outside an ordered request once serving, and past the bound. */
    void activate(byte[] oid, Servant servant) throws ServantAlreadyActive, ObjectAlreadyActive {
        if (!(servant instanceof InvokeHandler)) {
            throw new BAD_PARAM("FTS replicates IDL skeleton servants (InvokeHandler), not "
                    + servant.getClass().getName(), 0, CompletionStatus.COMPLETED_NO);
        }
        if (References.marked(oid)) {
            throw new BAD_PARAM("FTS: an object id may not end with the placement mark (a NUL and \"fts>\")");
        }
        ObjectKey key = new ObjectKey(oid);
        if (!(servant instanceof CheckpointableOperations) && !(servant instanceof Stateless)) {
            throw new BAD_PARAM("FTS: object " + Snapshot.name(key) + " (" + servant.getClass().getName()
                    + ") implements neither FTS::Checkpointable (org.fts.checkpoint.CheckpointableOperations) nor "
                    + "org.fts.goa.Stateless: a replica that joins later could not obtain its state "
                    + "(docs/state-transfer.md)", 0, CompletionStatus.COMPLETED_NO);
        }
        changing("activate_object_with_id", key);
        if (ids.containsKey(servant)) {
            throw new ServantAlreadyActive();
        }
        if (servants.size() >= max && !servants.containsKey(key)) {
            throw new NO_RESOURCES("FTS: the group holds " + servants.size() + " objects, fts.objects.max; object "
                    + Snapshot.name(key) + " is not created", 0, CompletionStatus.COMPLETED_MAYBE);
        }
        orb.set_delegate(servant);   // skeletons call _orb(); no POA activates it
        String type = servant._all_interfaces(adapter, oid)[0];
        if (servants.putIfAbsent(key, servant) != null) {
            throw new ObjectAlreadyActive();
        }
        types.put(key, type);
        ids.put(servant, key);
    }

    /** {@code deactivate_object}: refused outside an ordered request once serving. */
    void deactivate(byte[] oid) throws ObjectNotActive {
        ObjectKey key = new ObjectKey(oid);
        changing("deactivate_object", key);
        remove(key);
    }

    private void remove(ObjectKey key) throws ObjectNotActive {
        Servant s = servants.remove(key);
        if (s == null) {
            throw new ObjectNotActive();
        }
        types.remove(key);
        ids.remove(s);
    }

    private void changing(String call, ObjectKey key) {
        if (!serving) {
            return;   // the server's own objects, before the POA manager is activated
        }
        if (!oneLane) {
            throw new BAD_INV_ORDER("FTS: " + call + " of object " + Snapshot.name(key) + " once the group serves "
                    + "needs one execution lane (fts.pool.background=1): with more, a request to the object could "
                    + "execute before or after the request that changes it, differently on each replica",
                    0, CompletionStatus.COMPLETED_NO);
        }
        if (RequestContext.executingFor(this)) {
            return;   // a request of this group (not of another adaptor's in this JVM)
        }
        throw new BAD_INV_ORDER("FTS: " + call + " of object " + Snapshot.name(key) + " outside an ordered request, "
                + "once the group serves: only a request the group ordered may change the group's objects (every "
                + "replica executes it at the same position); call it from an operation of a servant",
                0, CompletionStatus.COMPLETED_NO);
    }

    /**
     * At a cut, installing the group's state: makes this table hold exactly {@code wanted} (id and type, in the
     * snapshot's order). Every missing servant is incarnated first, and anything it cannot do is refused before the
     * table changes.
     */
    void becomeExactly(List<ObjectKey> wanted, List<String> wantedTypes, java.util.Set<ObjectKey> stateful)
            throws Snapshot.StateException {
        if (wanted.size() > max) {
            throw new Snapshot.StateException("the group holds " + wanted.size() + " objects, more than this replica's "
                    + "fts.objects.max (" + max + ")");
        }
        Map<ObjectKey, Servant> made = new java.util.LinkedHashMap<>();
        Map<ObjectKey, String> madeTypes = new java.util.HashMap<>();
        for (int i = 0; i < wanted.size(); i++) {
            ObjectKey k = wanted.get(i);
            String type = wantedTypes.get(i);
            Servant have = servants.get(k);
            if (have != null) {
                if (!type.isEmpty() && !type.equals(types.get(k))) {
                    throw new Snapshot.StateException("object " + Snapshot.name(k) + " is a " + type
                            + " in the group but a " + types.get(k) + " here");
                }
                continue;
            }
            Servant s = incarnate(k, type);
            if (stateful.contains(k) && !(s instanceof CheckpointableOperations)) {
                throw new Snapshot.StateException("object " + Snapshot.name(k) + " has state in the group, but the "
                        + "servant activator gave it a " + s.getClass().getName() + ", which is not Checkpointable");
            }
            made.put(k, s);
            madeTypes.put(k, type);
        }
        java.util.Set<ObjectKey> keep = new java.util.HashSet<>(wanted);
        for (ObjectKey k : List.copyOf(servants.keySet())) {
            if (!keep.contains(k)) {
                try {
                    remove(k);   // the group destroyed it (or never had it)
                } catch (ObjectNotActive gone) {
                    // not there: nothing to remove
                }
            }
        }
        made.forEach((k, s) -> {
            servants.put(k, s);
            types.put(k, madeTypes.get(k));
            ids.put(s, k);
        });
    }

    private Servant incarnate(ObjectKey k, String type) throws Snapshot.StateException {
        ServantActivator a = activator;
        if (a == null || type.isEmpty()) {
            throw new Snapshot.StateException("object " + Snapshot.name(k) + (type.isEmpty() ? "" : " (" + type + ")")
                    + " is in the group but not activated here, and " + (a == null
                    ? "no servant activator is set (set_servant_manager) to incarnate it" : "the state names no type")
                    + " (docs/goa.md, objects created while serving)");
        }
        Servant s;
        try {
            s = a.incarnate(k.id(), adapter);
        } catch (org.omg.PortableServer.ForwardRequest | RuntimeException e) {
            throw new Snapshot.StateException("the servant activator did not incarnate object " + Snapshot.name(k)
                    + " (" + type + "): " + e);
        }
        if (!(s instanceof InvokeHandler) || !(s instanceof CheckpointableOperations || s instanceof Stateless)) {
            throw new Snapshot.StateException("the servant activator gave object " + Snapshot.name(k) + " a "
                    + (s == null ? "null servant" : s.getClass().getName()) + ", not an IDL skeleton that is "
                    + "Checkpointable or Stateless");
        }
        orb.set_delegate(s);
        String got = s._all_interfaces(adapter, k.id())[0];
        if (!got.equals(type)) {
            throw new Snapshot.StateException("the servant activator gave object " + Snapshot.name(k) + " a " + got
                    + ", but the group's is a " + type);
        }
        return s;
    }
}
