package org.fts.ft.client;

import java.util.ArrayList;
import java.util.List;

import org.fts.ft.FtConstants;
import org.fts.ft.FtGroupComponent;
import org.fts.ft.Ior;
import org.omg.CORBA.ORB;

/**
 * What a client knows of one object group: its members (one single-profile reference per replica, in the
 * IOGR's order) and the reference version they come from. Immutable; a newer IOGR replaces it whole.
 */
final class ObjectGroup {
    /** One replica of the group: its IIOP endpoint and a reference that reaches only it. */
    record Member(String endpoint, org.omg.CORBA.Object ref) {
    }

    private final long version;
    private final List<Member> members;

    private ObjectGroup(long version, List<Member> members) {
        this.version = version;
        this.members = List.copyOf(members);
    }

    /** The group an IOGR describes; {@link org.omg.CORBA.MARSHAL} if it is malformed. */
    static ObjectGroup of(ORB orb, String iogr) {
        Ior ior = Ior.parse(iogr);
        long version = 0;
        List<Member> members = new ArrayList<>();
        for (Ior.Profile p : ior.profiles()) {
            byte[] tag = p.component(FtConstants.TAG_FT_GROUP);
            if (tag == null) {
                continue;   // not an IIOP profile of this group
            }
            version = Math.max(version, FtGroupComponent.decode(tag).refVersion());
            // A member reaches only its replica: the redirect logic picks the next one, not the client ORB.
            Ior.Profile only = Ior.Iiop.decode(p.data()).without(Ior.TAG_ALTERNATE_IIOP_ADDRESS).profile();
            members.add(new Member(p.endpoint(), orb.string_to_object(ior.withOnly(only))));
        }
        if (members.isEmpty()) {
            throw new org.omg.CORBA.BAD_PARAM("FTS: the reference has no IIOP profile with TAG_FT_GROUP");
        }
        return new ObjectGroup(version, members);
    }

    long version() {
        return version;
    }

    int size() {
        return members.size();
    }

    Member member(int i) {
        return members.get(i);
    }

    /** The index of the member at {@code endpoint}, or -1. */
    int indexOf(String endpoint) {
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).endpoint().equals(endpoint)) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public String toString() {
        return "v" + version + " " + members.stream().map(Member::endpoint).toList();
    }
}
