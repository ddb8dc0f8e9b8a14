package org.fts.goa;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.fts.gc.GroupChannel;
import org.fts.gc.VoterChange;
import org.fts.gc.Voters;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code fts members} at a replica (docs/membership.md): {@code list} answers the voters and the view's learners;
 * {@code add ID} and {@code remove ID} are signed like {@code fts backup} ({@link AdminPasscode}) and handed to the
 * binding ({@link GroupChannel#changeVoters}), which orders them through the group's own agreement, one at a time,
 * and refuses what would break a majority. The answer waits for the commit, at most {@link #WAIT}. Every change asked
 * for is logged with the command's outcome.
 */
final class VoterCommands {
    private static final Logger LOG = LoggerFactory.getLogger(VoterCommands.class);
    /** Longest a change may take to be committed before the command answers that it is not known yet. */
    static final Duration WAIT = Duration.ofSeconds(30);
    static final String LIST = "fts-members-list";
    static final String ADD = "fts-members-add=";
    static final String REMOVE = "fts-members-remove=";

    private final String self;
    private final String group;
    private final GroupChannel channel;
    private volatile AdminPasscode passcode = AdminPasscode.none();

    VoterCommands(String self, String group, GroupChannel channel) {
        this.self = self;
        this.group = group;
        this.channel = channel;
    }

    void passcode(AdminPasscode p) {
        passcode = p;
    }

    /** An operator's command, or null if {@code signed} is none of these. */
    Map<String, String> command(String signed) {
        if (!signed.startsWith("fts-members-")) {
            return null;
        }
        if (signed.equals(LIST) || signed.startsWith(LIST + ";u=")) {   // reads only, as fts status: no passcode
            return list();
        }
        String key;
        String who;
        try {
            AdminPasscode.Command command = passcode.accept(signed, group, self, System.currentTimeMillis());
            key = command.text();
            who = command.who();
        } catch (AdminPasscode.Refused e) {
            LOG.warn("{}: refused an operator's change of the voters: {}", self, e.getMessage());
            return Map.of("members.error", "refused: " + e.getMessage());
        }
        VoterChange change;
        try {
            if (key.startsWith(ADD)) {
                change = new VoterChange(true, key.substring(ADD.length()));
            } else if (key.startsWith(REMOVE)) {
                change = new VoterChange(false, key.substring(REMOVE.length()));
            } else {
                return key.equals(LIST) ? list() : null;
            }
        } catch (IllegalArgumentException e) {
            return Map.of("members.error", e.getMessage());
        }
        LOG.info("{}: {} asks for a change of the voters: {}", self, who, change);
        Map<String, String> out = new LinkedHashMap<>(list());
        try {
            Voters after = channel.changeVoters(change).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            out.put("members.outcome", "committed");
            out.put("members.voters", after.toString());
            out.put("members.size", Integer.toString(after.n()));
            out.put("members.learners", String.join(",", java.util.Arrays.stream(out.get("members.view").split(","))
                    .filter(r -> !r.isEmpty() && !after.votes(r)).toList()));
            LOG.info("{}: {}'s {}: committed; voters {}", self, who, change, after);
        } catch (TimeoutException e) {
            out.put("members.error", change + " was ordered but not known committed within " + WAIT.toSeconds()
                    + " s: it may still be; check bin/fts members list before trying again");
            LOG.warn("{}: {}'s {}: not known committed within {} s", self, who, change, WAIT.toSeconds());
        } catch (ExecutionException e) {
            String why = String.valueOf(e.getCause().getMessage());
            out.put("members.error", why);
            LOG.warn("{}: {}'s {}: {}", self, who, change, why);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.put("members.error", "interrupted");
        }
        return out;
    }

    /** The voters now, N, and the replicas of the view that count for nothing (learners). */
    private Map<String, String> list() {
        Voters v = channel.voters();
        Map<String, String> out = new LinkedHashMap<>();
        out.put("members.voters", v.toString());
        out.put("members.size", Integer.toString(v.n()));
        org.fts.gc.View view = channel.view();
        out.put("members.learners", view == null ? "" : String.join(",", view.members().stream()
                .map(org.fts.gc.MemberId::replica).filter(r -> !v.votes(r)).distinct().sorted().toList()));
        out.put("members.view", view == null ? "" : String.join(",", view.members().stream()
                .map(org.fts.gc.MemberId::replica).distinct().sorted().toList()));
        return out;
    }
}
