package org.fts.gc.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.fts.gc.GroupConfig;
import org.fts.gc.MemberId;

/**
 * The decision a recovery takes once every member of a view reported (docs/group-communication.md,
 * "Epochs"): whether the view establishes a new epoch of the group's history, from which member's history it
 * continues, and what each member must do. Pure: the same reports give the same plan, in every binding.
 *
 * <p>The rules, in the style of Viewstamped Replication's view change:
 * <ol>
 *   <li><b>Exclusive</b> (N &gt; 0): the view's members hold a majority of the N replicas. Two disjoint views
 *       cannot both hold one.</li>
 *   <li><b>Durable</b> (N &gt; 0): the members that hold a history (not {@code fresh}: they opened an epoch in
 *       this incarnation) hold a majority of the N replicas. Every broadcast delivered under uniform delivery
 *       was held by a majority, so one of them is here. A replica restarted after a crash is fresh: it lost
 *       what its predecessor held. Exceptions: when every member is fresh, they <em>found</em> the group; and
 *       a founding that was interrupted before a majority opened it committed nothing, so the view founds the
 *       group again.</li>
 *   <li><b>Continued</b>: the new epoch continues the most advanced history, the highest (epoch, last) among
 *       the members that hold one (the <em>source</em>). Members of the source's epoch hold a prefix of it
 *       (one sequencer per epoch, FIFO) and are repaired up to it; every other member has a gap.</li>
 *   <li><b>Served</b> (N &gt; 0): some member of the source's epoch holds a synced state, so that members with
 *       a gap can fetch one. Without it the group would be primary yet unable to serve, waiting for ever.</li>
 * </ol>
 * When rules 2-4 fail because no member of the latest epoch holds a synced state, a second, certified path may still
 * establish one ({@link Lineage#splice}): the history that epoch continued, which its own recovery certified to hold
 * everything committed before it, from a synced member of the epoch it continued, then the epoch's own entries.
 */
public final class EpochPlan {
    /**
     * One step of an epoch's lineage: the epoch's history is {@code epoch}'s (of ballot {@code ballot}) up to
     * position {@code upTo}. An epoch continues its source's history up to its start - 1, and that one its own
     * source's, so a short list of links, nearest first, says which older epochs a member's history agrees with.
     */
    public record Link(EpochId epoch, long ballot, long upTo) {
        /** How many links an epoch keeps: the older ones rarely matter, and the list must stay bounded. */
        public static final int KEEP = 8;

        /**
         * How far the histories of two reports are known to be the same through their lineages: up to the nearer of
         * where each continued an epoch both continued (or the other's own epoch), and no further than either holds;
         * 0 if they share none.
         */
        public static long common(Report a, Report b) {
            long together = together(a, b);
            return together < 0 ? 0 : Math.max(0, Math.min(together, Math.min(a.last(), b.last())));
        }

        /** Whether the lineages of two reports (each with its own epoch) name a common epoch. */
        public static boolean shares(Report a, Report b) {
            return together(a, b) >= 0;
        }

        /**
         * Up to where the lineages of two reports continue a common epoch (or the other's own), whatever their logs
         * still hold (a log a power loss cut short is still that history's up to where its epoch goes); -1 if they name
         * none.
         */
        static long together(Report a, Report b) {
            long upTo = -1;
            for (Link x : withOwn(a)) {
                for (Link y : withOwn(b)) {
                    if (x.epoch().equals(y.epoch()) && x.ballot() == y.ballot()) {
                        upTo = Math.max(upTo, Math.min(x.upTo(), y.upTo()));
                    }
                }
            }
            return upTo;
        }

        private static List<Link> withOwn(Report r) {
            List<Link> out = new ArrayList<>();
            if (r.epoch() == null) {
                return out;   // it reports no epoch (fresh, or catching up): it shares none
            }
            out.add(new Link(r.epoch(), r.ballot(), Long.MAX_VALUE));
            out.addAll(r.lineage());
            return out;
        }

        /** The lineage of an epoch opening at {@code start} that continues {@code source}'s history. */
        public static List<Link> of(long start, Report source) {
            List<Link> out = new ArrayList<>();
            if (source == null || source.epoch() == null) {
                return out;
            }
            out.add(new Link(source.epoch(), source.ballot(), start - 1));
            for (Link l : source.lineage()) {
                if (out.size() == KEEP) {
                    break;
                }
                out.add(new Link(l.epoch(), l.ballot(), Math.min(l.upTo(), start - 1)));
            }
            return out;
        }
    }

    /** Positions {@code from}..{@code to} (inclusive) of a member's log that exist but fail their checksum. */
    public record Span(long from, long to) {
        boolean contains(long p) {
            return p >= from && p <= to;
        }
    }

    /**
     * What one member told the recovery: {@code epoch} (null for a fresh member) is the last epoch it opened,
     * {@code founding} whether that epoch founded the group (the history before it is empty) and
     * {@code epochMembers} its membership; {@code last} the last entry of the history it holds; {@code commit} the
     * last it knows a majority holds; {@code base} the last entry it can no longer give for a repair (0 without a
     * log; with one, compacted behind a checkpoint).
     *
     * <p>Its epoch's lineage: {@code start}, the epoch's first position (0 if unknown); {@code lineage}, the older
     * epochs whose history it continued, nearest first ({@link Link}; empty for a founding, or unknown).
     * {@code delivered}: the position its application's state is at (-1: unknown). {@code shortLog}: see
     * {@link #shortOf}. {@code damaged}: with a log, positions up to {@code last} its log holds but cannot verify (a damaged record:
     * they exist, so they count as held, but cannot be given for a repair). {@code mayHoldFrom}: see
     * {@link #uncertainFrom}. {@code cut}: see {@link #cutBack}.
     */
    public record Report(boolean fresh, boolean synced, long ballot, EpochId epoch, boolean founding,
                         List<MemberId> epochMembers, long last, long commit, long base, long start, List<Link> lineage,
                         long delivered, List<Span> damaged, boolean shortLog, long mayHoldFrom, boolean cut) {
        public Report {
            epochMembers = List.copyOf(epochMembers);
            lineage = lineage == null ? List.of() : List.copyOf(lineage);
            damaged = damaged == null ? List.of() : List.copyOf(damaged);
        }

        public Report(boolean fresh, boolean synced, long ballot, EpochId epoch, boolean founding,
                      List<MemberId> epochMembers, long last, long commit, long base, long start, List<Link> lineage,
                      long delivered, List<Span> damaged, boolean shortLog) {
            this(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, base, start, lineage, delivered,
                    damaged, shortLog, Long.MAX_VALUE, false);
        }

        public Report(boolean fresh, boolean synced, long ballot, EpochId epoch, boolean founding,
                      List<MemberId> epochMembers, long last, long commit, long base) {
            this(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, base, 0, List.of(), -1, List.of(),
                    false);
        }

        public Report(boolean fresh, boolean synced, long ballot, EpochId epoch, boolean founding,
                      List<MemberId> epochMembers, long last, long commit) {
            this(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, 0);
        }

        /** A report whose epoch's ballot is its view id (as every ballot is while no member restarted from a log). */
        public Report(boolean fresh, boolean synced, EpochId epoch, boolean founding, List<MemberId> epochMembers,
                      long last) {
            this(fresh, synced, epoch == null ? 0 : epoch.view(), epoch, founding, epochMembers, last, 0, 0);
        }

        /** This report, saying that its epoch opened at {@code at} with lineage {@code links}. */
        public Report lineage(long at, List<Link> links) {
            return new Report(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, base, at, links,
                    delivered, damaged, shortLog, mayHoldFrom, cut);
        }

        /** This report, saying that its application's state is at position {@code at}. */
        public Report applied(long at) {
            return new Report(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, base, start, lineage,
                    at, damaged, shortLog, mayHoldFrom, cut);
        }

        /** This report, whose log holds {@code spans} damaged. */
        public Report damaged(List<Span> spans) {
            return new Report(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, base, start, lineage,
                    delivered, spans, shortLog, mayHoldFrom, cut);
        }

        /**
         * This report, with {@code shortLog}: the member's log holds its epoch's history only up to {@code last}, short
         * of the epoch's start. It is no source, but it opened that epoch and nothing later, and anything it
         * acknowledged is in its log: a source that covers it counts it towards rule 2.
         */
        public Report shortOf(boolean isShort) {
            return new Report(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, base, start, lineage,
                    delivered, damaged, isShort, mayHoldFrom, cut);
        }

        /**
         * This report, whose log may have held, and acknowledged, entries from {@code from} on that it no longer holds
         * ({@link Long#MAX_VALUE}: none): after a power loss it cut a tail it could not prove unsynced (damage in the
         * batch synced last looks like a torn write; docs/durability.md). The recovery counts it as a member that
         * may hold those entries ({@link Mend}).
         */
        public Report uncertainFrom(long from) {
            return new Report(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, base, start, lineage,
                    delivered, damaged, shortLog, from, cut);
        }

        /**
         * This report, with {@code isCut}: a recovery it has not opened cut its log back for repairs, and it took that
         * recovery's source's marks, which say more than its log holds. It is never the source of a history.
         */
        public Report cutBack(boolean isCut) {
            return new Report(fresh, synced, ballot, epoch, founding, epochMembers, last, commit, base, start, lineage,
                    delivered, damaged, shortLog, mayHoldFrom, isCut);
        }

        boolean holdsHistory() {
            return !fresh && epoch != null && !shortLog;
        }

        /** Whether it reports the epoch it last opened (its log may be short of it). */
        boolean knowsEpoch() {
            return !fresh && epoch != null;
        }

        /** Whether its log holds {@code p} verified (not damaged, not compacted). */
        boolean verifies(long p) {
            return p > base && p <= last && damaged.stream().noneMatch(s -> s.contains(p));
        }
    }

    /**
     * What one member does in the new epoch: skip to it ({@code gap}), or continue; {@code provider} names a
     * member with a synced state for one whose state is not (null if it is, or if there is none but itself).
     * {@code truncate} (members of another epoch than the source's that continue; else -1): the member drops what it
     * holds after that entry (all of it committed, so in the history) and is repaired from there. {@code witness}
     * (without a log, a member with a gap; else -1): before it opens, the member holds the entries after that
     * position up to the start, which may not be committed yet (the new epoch's tail): it counts towards their
     * commit when it acknowledges its opening, so it must hold them, as a copy a later recovery can be given.
     */
    public record Assignment(boolean gap, MemberId provider, long truncate, long witness) {
        public Assignment(boolean gap, MemberId provider) {
            this(gap, provider, -1, -1);
        }

        public Assignment(boolean gap, MemberId provider, long truncate) {
            this(gap, provider, truncate, -1);
        }
    }

    /** {@code source} sends {@code target} its entries in ({@code from}, {@code upTo}]. */
    public record Repair(MemberId source, MemberId target, long from, long upTo) {
    }

    /**
     * The outcome: {@code reason} is non-null when the view is not primary. {@code founding}: the view starts
     * the group's history afresh (every member at the initial state; with {@code refounding}, members drop
     * what they hold of a founding that never committed anything).
     */
    public record Decision(String reason, MemberId source, boolean founding, boolean refounding, long start,
                           Map<MemberId, Assignment> assignments, List<Repair> repairs) {
        public boolean established() {
            return reason == null;
        }

        public static Decision notPrimary(String reason) {
            return new Decision(reason, null, false, false, 0, Map.of(), List.of());
        }

        static Decision founding(List<MemberId> members, boolean refounding, long start) {
            Map<MemberId, Assignment> all = new LinkedHashMap<>();
            members.forEach(m -> all.put(m, new Assignment(false, null)));
            return new Decision(null, null, true, refounding, start, all, List.of());
        }
    }

    private EpochPlan() {
    }

    /**
     * @param members the view, coordinator first (every one of them reported)
     * @param self    the deciding member (preferred as source among equals: it repairs without a hop)
     */
    public static Decision decide(GroupConfig config, List<MemberId> members, Map<MemberId, Report> reports,
                                  MemberId self) {
        return decide(config, false, members, reports, self);
    }

    /**
     * @param durable the members log what they hold ({@code fts.durability=log}): a member of another epoch than
     *                the source's is not given a gap but repaired from its commit point (its own log rebuilds its
     *                application's state), and a fresh one from the start of the history
     */
    public static Decision decide(GroupConfig config, boolean durable, List<MemberId> members,
                                  Map<MemberId, Report> reports, MemberId self) {
        int n = config.groupSize();
        int majority = n / 2 + 1;
        if (n > 0 && config.voters(members) < majority) {
            return Decision.notPrimary("the view holds " + config.voters(members) + " of the " + n
                    + (config.voters().isEmpty() ? " replicas (fts.group.size)" : " voters (fts.group.voters)")
                    + "; a primary needs " + majority);
        }
        List<MemberId> holders = new ArrayList<>();
        for (MemberId m : members) {
            if (reports.get(m).holdsHistory()) {
                holders.add(m);
            }
        }
        Lineage lineage = new Lineage(config, members, reports, durable);
        Decision d = holders.isEmpty() ? null : decideWith(config, durable, members, reports, self, holders, lineage,
                true);
        if ((d == null || !d.established()) && durable && n > 0) {
            // A member whose log is short of its epoch counts as a holder when no entry after its last can have been
            // committed (Lineage.mayContinueShort): tried only when the holders alone establish nothing, or when there
            // are none (every log short of its epoch: simulator seed 15933 with logs).
            List<MemberId> more = new ArrayList<>(holders);
            for (MemberId m : members) {
                if (!holders.contains(m) && lineage.mayContinueShort(reports.get(m))) {
                    more.add(m);
                }
            }
            if (more.size() > holders.size()) {
                Decision d2 = decideWith(config, durable, members, reports, self, more, lineage, false);
                if (d2.established()) {
                    return d2;
                }
            }
        }
        if (d != null) {
            return d;
        }
        if (durable && members.stream().anyMatch(m -> !reports.get(m).fresh())) {
            // A durable member holds entries it cannot vouch for yet (cut back for repairs from an epoch it has
            // not opened): what it holds up to its commit point is committed, so the group is not founded anew.
            return Decision.notPrimary("no member here holds the latest epoch of the group's history (those "
                    + "here were being repaired when it changed)");
        }
        return Decision.founding(members, false, 1);
    }

    /** Rules 2-4 over {@code holders}, then (if {@code splice}) the certified path. */
    private static Decision decideWith(GroupConfig config, boolean durable, List<MemberId> members,
                                       Map<MemberId, Report> reports, MemberId self, List<MemberId> holders,
                                       Lineage lineage, boolean splice) {
        int n = config.groupSize();
        int majority = n / 2 + 1;
        List<MemberId> kept = new ArrayList<>(holders);
        if (n > 0) {
            lineage.dropHollowEpochs(kept);
        }
        if (n > 0 && config.voters(kept) < majority
                && config.voters(Continuation.covered(config, members, reports, kept, self, lineage)) < majority) {
            if (lineage.foundingNeverCommitted(kept)) {
                long last = members.stream().mapToLong(m -> reports.get(m).last()).max().orElse(0);
                return Decision.founding(members, true, last + 1);
            }
            Decision spliced = splice ? lineage.splice(holders, self) : null;
            return spliced != null ? spliced : Decision.notPrimary("only " + config.voters(kept) + " of the "
                    + n + " replicas here hold the group's history (restarted replicas lost theirs); a primary needs "
                    + majority);
        }
        Decision d = Continuation.from(config, durable, members, reports, kept, self, 0);
        if (!d.established() && n > 0 && splice) {
            Decision spliced = lineage.splice(holders, self);
            return spliced != null ? spliced : d;
        }
        return d;
    }

    /**
     * Where a new epoch's tail begins for members with a gap: after the last position anyone here knows committed
     * (committed positions are the same in every history) and what {@code source} can no longer give; -1 if nothing
     * after it is left up to the source's last.
     */
    static long witnessFrom(Map<MemberId, Report> reports, Report source) {
        long w = source.base();
        for (Report r : reports.values()) {
            if (!r.fresh()) {
                w = Math.max(w, Math.min(r.commit(), r.last()));
            }
        }
        return w < source.last() ? w : -1;
    }

    /**
     * How the epochs two holders opened compare: by the ballot that established each (a later recovery's ballot is
     * above every ballot its majority promised, as in Paxos), then by epoch id. View ids alone do not order epochs
     * across a whole-group restart: JGroups numbers the views of a group formed again from 1.
     */
    static int rank(Report a, Report b) {
        int c = Long.compare(a.ballot(), b.ballot());
        return c != 0 ? c : a.epoch().compareTo(b.epoch());
    }
}
