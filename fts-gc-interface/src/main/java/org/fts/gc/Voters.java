package org.fts.gc;

import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * The replicas whose presence and acknowledgements count toward a group's majorities, as its binding holds them now
 * ({@link GroupChannel#voters}). Any other replica is a learner: it takes the state, delivers, executes and serves,
 * and counts toward nothing (docs/primary-view.md, "Voters and learners"). On the jgroups binding they are fixed at
 * start ({@code fts.group.voters}); on the raft binding they are the Raft members, changed through the log
 * ({@link GroupChannel#changeVoters}).
 *
 * @param ids the voting replica ids ({@link MemberId#replica()}); empty: every replica votes
 * @param n   the number of voters, N (with {@code ids} empty: {@code fts.group.size}, 0 for "no majority needed")
 */
public record Voters(Set<String> ids, int n) {
    public Voters {
        ids = Set.copyOf(ids);
        if (!ids.isEmpty() && n != ids.size()) {
            throw new IllegalArgumentException(n + " voters, but " + ids.size() + " named: " + ids);
        }
    }

    /** These voters, N their number. */
    public static Voters of(Collection<String> ids) {
        return new Voters(Set.copyOf(ids), new HashSet<>(ids).size());
    }

    /** Whether replica {@code replicaId} counts toward majorities. */
    public boolean votes(String replicaId) {
        return ids.isEmpty() || ids.contains(replicaId);
    }

    /** Distinct voting replica ids among {@code members}. */
    public int count(Collection<MemberId> members) {
        Set<String> here = new HashSet<>();
        for (MemberId m : members) {
            if (votes(m.replica())) {
                here.add(m.replica());
            }
        }
        return here.size();
    }

    /** How many voters make a majority of N. */
    public int majority() {
        return n / 2 + 1;
    }

    /** The voters after {@code change}. */
    public Voters after(VoterChange change) {
        Set<String> next = new HashSet<>(ids);
        if (change.add()) {
            next.add(change.replica());
        } else {
            next.remove(change.replica());
        }
        return of(next);
    }

    /**
     * Why {@code change} must not be made in {@code view}, or null: the one-change-at-a-time rules every binding
     * applies before it orders a change (docs/membership.md):
     * <ul>
     *   <li>only named voters change: not "every replica votes";</li>
     *   <li>an added replica is not a voter yet and is in the view (started, so it holds the state as a learner: a
     *       voter that is not running would count toward N and toward no majority);</li>
     *   <li>a removed replica is a voter, and not the last;</li>
     *   <li>after it, the voters in the view still make a majority of the new N, so the group serves on.</li>
     * </ul>
     */
    public String refusal(VoterChange change, View view) {
        String r = change.replica();
        if (ids.isEmpty()) {
            return "every replica votes here: only a group whose voters are named can change them";
        }
        if (change.add()) {
            if (ids.contains(r)) {
                return r + " is a voter already (voters: " + this + ")";
            }
            if (view == null || view.members().stream().noneMatch(m -> m.replica().equals(r))) {
                return r + " is not in the view " + (view == null ? "(none yet)" : replicas(view))
                        + ": start it first (it joins as a learner and takes the state), then add it";
            }
        } else {
            if (!ids.contains(r)) {
                return r + " is not a voter (voters: " + this + ")";
            }
            if (ids.size() == 1) {
                return r + " is the last voter: a group needs one";
            }
        }
        Voters next = after(change);
        int present = view == null ? 0 : next.count(view.members());
        if (present < next.majority()) {
            return "after it the view would hold " + present + " of the " + next.n() + " voters " + next
                    + ", and a majority needs " + next.majority() + ": bring the missing voters back first";
        }
        return null;
    }

    private static List<String> replicas(View v) {
        return v.members().stream().map(MemberId::replica).distinct().sorted().toList();
    }

    /** The ids, sorted and comma-separated ("every replica" when none are named). */
    @Override
    public String toString() {
        return ids.isEmpty() ? "every replica" : String.join(",", new TreeSet<>(ids));
    }
}
