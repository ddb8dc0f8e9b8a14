package org.fts.jgroups;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.jgroups.Address;
import org.jgroups.MergeView;
import org.jgroups.util.NameCache;

/**
 * A JGroups member's addresses by FTS member name: those of the current view, and of the 64 members that left
 * most recently (a probe and its answer must reach a member that just left the sender's view). Thread-safe.
 */
public final class AddressBook {
    private volatile Map<MemberId, Address> current = Map.of();
    private final Map<MemberId, Address> departed = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<MemberId, Address> eldest) {
            return size() > 64;
        }
    };

    /** {@code m}'s address in the current view, or null. */
    public Address get(MemberId m) {
        return current.get(m);
    }

    /** {@code m}'s address in the current view or, if it left recently, its last one; or null. */
    public Address getOrDeparted(MemberId m) {
        Address a = current.get(m);
        if (a == null) {
            synchronized (departed) {
                a = departed.get(m);
            }
        }
        return a;
    }

    /** Takes JGroups' view {@code v}, and returns it as FTS's (as installed at {@code self}). */
    public View install(org.jgroups.View v, MemberId self) {
        Map<MemberId, Address> addrs = new HashMap<>();
        List<MemberId> members = new ArrayList<>();
        for (Address a : v.getMembers()) {
            MemberId id = name(a);
            members.add(id);
            addrs.put(id, a);
        }
        List<List<MemberId>> subgroups = new ArrayList<>();
        if (v instanceof MergeView mv) {
            for (org.jgroups.View sub : mv.getSubgroups()) {
                subgroups.add(sub.getMembers().stream().map(AddressBook::name).toList());
            }
        }
        synchronized (departed) {
            current.forEach((m, a) -> {
                if (!addrs.containsKey(m)) {
                    departed.put(m, a);
                }
            });
            addrs.keySet().forEach(departed::remove);
        }
        current = addrs;
        return new View(v.getViewId().getId(), members, self, subgroups);
    }

    /** The FTS name of a JGroups address (the channel's logical name). */
    public static MemberId name(Address a) {
        String n = NameCache.get(a);
        return new MemberId(n != null ? n : String.valueOf(a));
    }
}
