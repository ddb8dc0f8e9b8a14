package org.fts.goa;

import org.fts.goa.intake.LoadIndex;
import org.fts.goa.intake.Standing;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.fts.config.ConfigException;
import org.fts.gc.GroupChannel;
import org.fts.gc.MemberId;
import org.fts.gc.View;
import org.fts.gc.Whiteboard;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares this replica's {@link AgreedSettings} with the group's as it starts (docs/configuration.md). Each
 * replica publishes its settings' fingerprint on the whiteboard ({@link LoadIndex#FINGERPRINT}); a replica that
 * sees another's differ sends it its settings ({@link Direct.Settings}), so that each can name the keys and both
 * values. A replica that has not started serving yet refuses to: its {@code activate()} fails with the
 * differences (a {@link ConfigException}); one already serving logs them, once per member (the other refuses).
 * {@code activate()} returns only once the fingerprints of every member of its view were seen equal, or after
 * {@link #SETTLE_MILLIS}: a member that publishes none (another version) is named in a warning; one whose fingerprint
 * differs and whose values never came makes it refuse all the same.
 *
 * <p>{@link #check} runs on the load index's sampling thread; {@link #received} on the delivery thread, where the
 * standing changes.
 */
final class SettingsCheck {
    private static final Logger LOG = LoggerFactory.getLogger(SettingsCheck.class);
    /** Longest the start waits to compare its settings with every member of its view. */
    static final long SETTLE_MILLIS = 5_000;

    private final String replica;
    private final AgreedSettings mine;
    private final GroupChannel channel;
    private final Standing standing;
    private final long startNanos = System.nanoTime();
    private final Set<MemberId> sentTo = ConcurrentHashMap.newKeySet();
    private final Set<MemberId> reported = ConcurrentHashMap.newKeySet();
    private volatile boolean settled;

    SettingsCheck(String replica, AgreedSettings mine, GroupChannel channel, Standing standing) {
        this.replica = replica;
        this.mine = mine;
        this.channel = channel;
        this.standing = standing;
    }

    long fingerprint() {
        return mine.fingerprint();
    }

    /** Compares the fingerprints the whiteboard shows for the view's members; settles the start when it can. */
    void check() {
        View v = channel.view();
        if (v == null) {
            return;
        }
        Map<MemberId, Whiteboard.Entry> board = channel.whiteboard().entries();
        List<MemberId> unknown = new ArrayList<>();
        boolean differ = false;
        for (MemberId m : v.members()) {
            if (m.equals(channel.self())) {
                continue;
            }
            Whiteboard.Entry e = board.get(m);
            long theirs = e == null ? 0 : e.value(LoadIndex.FINGERPRINT);
            if (theirs == 0) {
                unknown.add(m);
            } else if (theirs != mine.fingerprint()) {
                differ = true;
                if (sentTo.add(m)) {
                    channel.send(m, Direct.settings(mine.encode()));
                }
            }
        }
        if (settled) {
            return;
        }
        boolean late = System.nanoTime() - startNanos > SETTLE_MILLIS * 1_000_000;
        if (late && differ) {   // a fingerprint differs and its owner never said its values: refuse all the same
            settled = true;
            String what = "replica " + replica + "'s settings differ from another member's of its view (their "
                    + "fingerprints differ; its values did not arrive within " + SETTLE_MILLIS + " ms): compare "
                    + AgreedSettings.KEYS + " across the group";
            channel.onDeliveryThread(() -> {
                if (standing.refuse(new ConfigException("a setting the group shares", "differs: " + what))) {
                    LOG.error("{}: refuses to serve: {}", replica, what);
                }
                standing.settingsSettled();
            });
            return;
        }
        if ((!differ && unknown.isEmpty()) || late) {
            if (late && !unknown.isEmpty()) {
                LOG.warn("{}: could not compare its settings with {} (no fingerprint on the whiteboard within {} ms: "
                        + "another version of FTS?); it starts without", replica, unknown, SETTLE_MILLIS);
            }
            settled = true;
            channel.onDeliveryThread(standing::settingsSettled);
        }
    }

    /** Another replica's settings ({@link Direct.Settings}), sent because its fingerprint differs from this one's. */
    void received(MemberId from, Direct.Settings s) {
        String them = from.name().contains("#") ? from.name().substring(0, from.name().indexOf('#')) : from.name();
        List<String> diffs = mine.differences(AgreedSettings.decode(s.values()), them);
        if (diffs.isEmpty()) {
            return;
        }
        String what = "replica " + replica + "'s settings differ from those of " + them + ", and every replica "
                + "of a group must share them: " + String.join("; ", diffs);
        if (standing.refuse(new ConfigException(diffs.get(0).substring(0, diffs.get(0).indexOf(' ')),
                "differs across the group: " + what))) {
            LOG.error("{}: refuses to serve: {}", replica, what);
        } else if (reported.add(from)) {
            LOG.error("{}: {} (it refuses to serve; this replica serves on)", replica, what);
        }
    }
}
