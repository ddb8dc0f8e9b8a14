package org.fts.goa;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;

import org.fts.config.ConfigException;
import org.fts.gc.GroupChannel;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.Voters;
import org.fts.gc.Whiteboard;
import org.fts.gc.WireVersion;
import org.fts.goa.intake.Cast;
import org.fts.goa.intake.LoadIndex;
import org.fts.goa.intake.Standing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group's wire version, negotiated as etcd negotiates its cluster version (docs/upgrades.md). Each replica
 * publishes on the whiteboard ({@link LoadIndex#WIRE}) the versions its build speaks and, once its state is current,
 * the group's version. Two duties, on the load index's sampling thread after each sample:
 * <ul>
 *   <li><b>Refuse a joiner that cannot speak the group's version.</b> A replica that does not serve yet and sees a
 *       member of its view publish a group version its build does not speak refuses to serve, naming both (exit
 *       status 2). The total order backs this up: a batch of a version it does not speak, or a state at one, stops it
 *       too ({@link DeliveryRouter}).</li>
 *   <li><b>Move the group up.</b> The first member of the view, serving, casts {@link Cast.WireUpgrade} to the
 *       highest version every member speaks, once that is above the group's, every member of the view published its
 *       versions and the group's (its state is current), and every voter is in the view: a voter that is down could
 *       not come back on an older build. Every replica applies the upgrade at the same position of the order; the
 *       batches sent after it are of the new version. At most one cast per {@link #RECAST_MILLIS} while it is not
 *       applied.</li>
 * </ul>
 */
final class WireCheck {
    private static final Logger LOG = LoggerFactory.getLogger(WireCheck.class);
    /** How long a cast upgrade may take to be applied before it is cast again (a view change may have lost it). */
    static final long RECAST_MILLIS = 5_000;

    private final String replica;
    private final GroupChannel channel;
    private final Standing standing;
    private final ExecutionRecord record;
    private final java.util.function.Consumer<Cast> cast;
    private long castAtNanos;
    private int castVersion;
    private volatile boolean refused;

    WireCheck(String replica, GroupChannel channel, Standing standing, ExecutionRecord record,
              java.util.function.Consumer<Cast> cast) {
        this.replica = replica;
        this.channel = channel;
        this.standing = standing;
        this.record = record;
        this.cast = cast;
    }

    /** What this replica publishes: the group's version once its state is current (else 0), and its build's range. */
    long published() {
        return WireVersion.pack(standing.current() ? record.wire() : 0, WireVersion.lowest(), WireVersion.highest());
    }

    /** After each sample (the sampling thread). */
    void check() {
        View v = channel.view();
        if (v == null || refused) {
            return;
        }
        Map<MemberId, Whiteboard.Entry> board = channel.whiteboard().entries();
        if (standing.notServing() != null && !standing.current()) {
            refuseIfTheGroupSpeaksOtherwise(v, board);
        } else if (standing.notServing() == null && v.members().get(0).equals(channel.self())) {
            upgradeIfAllSpeakHigher(v, board);
        }
    }

    private void refuseIfTheGroupSpeaksOtherwise(View v, Map<MemberId, Whiteboard.Entry> board) {
        for (MemberId m : v.members()) {
            Whiteboard.Entry e = board.get(m);
            if (m.equals(channel.self()) || e == null || e.values().length <= LoadIndex.WIRE) {
                continue;
            }
            int group = WireVersion.group(e.values()[LoadIndex.WIRE]);
            if (group != 0 && !WireVersion.speaks(group)) {
                refused = true;
                String why = "replica " + replica + " cannot join its group: the group speaks wire version " + group
                        + " (" + m.replica() + " says), and this build speaks " + WireVersion.describe()
                        + ". Start it on a release that speaks " + group + " (docs/upgrades.md)";
                channel.onDeliveryThread(() -> {
                    if (standing.refuse(new ConfigException("wire version", "differs from the group's: " + why))) {
                        LOG.error("{}: refuses to serve: {}", replica, why);
                    }   // else it started meanwhile: the total order decides (DeliveryRouter.cannotFollow)
                });
                return;
            }
        }
    }

    private void upgradeIfAllSpeakHigher(View v, Map<MemberId, Whiteboard.Entry> board) {
        int group = record.wire();
        int target = Integer.MAX_VALUE;
        Set<String> present = new HashSet<>();
        for (MemberId m : v.members()) {
            Whiteboard.Entry e = board.get(m);
            if (e == null || e.values().length <= LoadIndex.WIRE) {
                return;   // not heard from yet (or a build that publishes no versions): no move
            }
            long packed = e.values()[LoadIndex.WIRE];
            if (WireVersion.group(packed) != group || WireVersion.lowest(packed) > group) {
                return;   // still obtaining the state, or behind this one's record
            }
            target = Math.min(target, WireVersion.highest(packed));
            present.add(m.replica());
        }
        Voters voters = channel.voters();
        boolean everyVoter = voters.ids().isEmpty() ? present.size() >= voters.n() : present.containsAll(voters.ids());
        if (target <= group || !everyVoter) {
            return;
        }
        long now = System.nanoTime();
        if (castVersion == target && now - castAtNanos < RECAST_MILLIS * 1_000_000) {
            return;
        }
        castVersion = target;
        castAtNanos = now;
        LOG.info("{}: every member of view {} speaks wire version {}: moving the group from {} (members {})", replica,
                v.id(), target, group, present);
        cast.accept(new Cast.WireUpgrade(target));
    }
}
