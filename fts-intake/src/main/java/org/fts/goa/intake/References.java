package org.fts.goa.intake;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAPackage.WrongPolicy;
import org.omg.PortableServer.Servant;

/**
 * The group references the adaptor hands out (IOGRs, {@link Iogr}), and the <em>placed</em> references placement
 * forwards a connection to: the same profiles, every object key marked ({@link #mark}). A request that arrives with a
 * marked key was forwarded once already, and is never forwarded again (docs/placement.md).
 */
public final class References {
    /** Appended to an object id in a placed reference's key: a NUL and "fts>" (an application id ending so is refused). */
    private static final byte[] MARK = {0, 'f', 't', 's', '>'};

    private final ORB orb;
    private final POA groupPoa;
    private final POA facade;
    private final Membership membership;
    private final String group;
    private final Map<ObjectKey, Servant> objects;
    private volatile String ownEndpoint;
    private final Map<ObjectKey, Map.Entry<Long, String>> cache = new ConcurrentHashMap<>();
    private final Map<ObjectKey, Map.Entry<Long, String>> placedCache = new ConcurrentHashMap<>();

    public References(ORB orb, POA groupPoa, POA facade, Membership membership, String group, Map<ObjectKey, Servant> objects) {
        this.orb = orb;
        this.groupPoa = groupPoa;
        this.facade = facade;
        this.membership = membership;
        this.group = group;
        this.objects = objects;
    }

    /** This replica's endpoint, for references while the group names none (null: its JacORB profile's). */
    public void ownEndpoint(String endpoint) {
        this.ownEndpoint = endpoint;
    }

    /** Object {@code oid}'s group reference with interface {@code intf}. */
    public org.omg.CORBA.Object reference(byte[] oid, String intf) {
        return orb.string_to_object(build(oid, oid, intf));
    }

    /** The current group reference of {@code oid}, stringified (cached per group version). */
    public String iogr(byte[] oid) {
        return cached(cache, oid, false);
    }

    /** {@link #iogr}, its object keys marked: the reference a forwarded connection is given. */
    public String placed(byte[] oid) {
        return cached(placedCache, oid, true);
    }

    private String cached(Map<ObjectKey, Map.Entry<Long, String>> in, byte[] oid, boolean placed) {
        long version = membership.current().version();
        ObjectKey key = new ObjectKey(oid);
        Map.Entry<Long, String> c = in.get(key);
        if (c == null || c.getKey() != version) {
            Servant s = objects.get(key);
            String intf = s == null ? "IDL:omg.org/CORBA/Object:1.0" : s._all_interfaces(facade, oid)[0];
            c = Map.entry(version, build(placed ? mark(oid) : oid, oid, intf));
            if (s != null) {   // never an id a client made up; and bounded as objects come and go
                if (in.size() > 2 * objects.size() + 1024) {
                    in.clear();
                }
                in.put(key, c);
            }
        }
        return c.getValue();
    }

    private String build(byte[] keyId, byte[] oid, String intf) {
        String local;
        try {
            local = orb.object_to_string(groupPoa.create_reference_with_id(keyId, intf));
        } catch (WrongPolicy e) {
            throw new org.omg.CORBA.INTERNAL("FTS: the group POA refuses user ids: " + e);   // it is USER_ID
        }
        Membership.Snapshot g = membership.current();
        String own = ownEndpoint;
        List<String> endpoints = g.endpoints().isEmpty() && own != null ? List.of(own) : g.endpoints();
        return Iogr.build(local, endpoints, group, oid, g.version());
    }

    static byte[] mark(byte[] oid) {
        byte[] out = java.util.Arrays.copyOf(oid, oid.length + MARK.length);
        System.arraycopy(MARK, 0, out, oid.length, MARK.length);
        return out;
    }

    /** Whether {@code oid} (as a request names it) carries the placed mark. */
    public static boolean marked(byte[] oid) {
        return oid.length >= MARK.length
                && java.util.Arrays.equals(oid, oid.length - MARK.length, oid.length, MARK, 0, MARK.length);
    }

    /** {@code oid} without the placed mark (itself when unmarked). */
    public static byte[] unmarked(byte[] oid) {
        return marked(oid) ? java.util.Arrays.copyOf(oid, oid.length - MARK.length) : oid;
    }
}
