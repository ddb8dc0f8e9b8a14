package org.fts.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The verdicts of {@code fts status} from replicas' answers ({@link StatusReport}). */
class StatusReportTest {
    private static Map<String, String> replica(String id, boolean serving, String members, long delivered) {
        return Map.of("id", id, "group", "bank", "serving", serving ? "yes" : "no: in a minority view",
                "members", members, "size", "3", "delivered", Long.toString(delivered), "role", "member");
    }

    @Test
    void everyReplicaServingIsServing() {
        StatusReport r = StatusReport.of(List.of(replica("a", true, "a,b,c", 7), replica("b", true, "a,b,c", 7),
                replica("c", true, "a,b,c", 5)), List.of());
        assertEquals(StatusReport.Health.SERVING, r.health());
        assertEquals(0, r.health().exit);
        assertTrue(r.lines().get(2).contains("lag=2"), r.lines().toString());   // shown, not judged
    }

    @Test
    void aMajorityServingWithOneMissingIsRecovering() {
        StatusReport r = StatusReport.of(List.of(replica("a", true, "a,b", 7), replica("b", true, "a,b", 7)),
                List.of("10.0.0.13:7500"));
        assertEquals(StatusReport.Health.RECOVERING, r.health());
        assertTrue(r.summary().contains("2 of 3 replicas serve (majority 2)"), r.summary());
    }

    @Test
    void aReplicaStillInTheViewButSilentIsNamed() {
        StatusReport r = StatusReport.of(List.of(replica("a", true, "a,b,c", 7), replica("b", true, "a,b,c", 7)),
                List.of());
        assertEquals(StatusReport.Health.RECOVERING, r.health());
        assertTrue(r.lines().stream().anyMatch(l -> l.startsWith("c ") && l.contains("UNREACHABLE")), r.lines()
                .toString());
    }

    @Test
    void fewerThanAMajorityServingIsMinorityEvenWhenTheyAllAnswer() {
        StatusReport r = StatusReport.of(List.of(replica("a", true, "a", 7), replica("b", false, "b", 7),
                replica("c", false, "c", 7)), List.of());
        assertEquals(StatusReport.Health.MINORITY, r.health());
        assertEquals(2, r.health().exit);
    }

    @Test
    void aServingLearnerCountsInNoMajority() {
        java.util.Map<String, String> learner = new java.util.HashMap<>(replica("d", true, "a,d", 7));
        learner.put("voter", "no");
        StatusReport r = StatusReport.of(List.of(replica("a", true, "a,d", 7), learner), List.of());
        assertEquals(StatusReport.Health.MINORITY, r.health(), r.summary());
        assertTrue(r.summary().contains("1 of 3 replicas serve (majority 2)") && r.summary().contains("1 learner(s)"),
                r.summary());
        assertTrue(r.lines().stream().anyMatch(l -> l.startsWith("d ") && l.contains("member/learner")), r.lines()
                .toString());
    }

    @Test
    void replicasThatNameDifferentVotersAreShownAsAChangeBeingApplied() {
        java.util.Map<String, String> a = new java.util.HashMap<>(replica("a", true, "a,b", 7));
        java.util.Map<String, String> b = new java.util.HashMap<>(replica("b", true, "a,b", 7));
        a.put("voters", "a,b,c");
        b.put("voters", "a,b");
        StatusReport r = StatusReport.of(List.of(a, b), List.of());
        assertTrue(r.summary().contains("name different voters: a,b / a,b,c"), r.summary());
        b.put("voters", "a,b,c");
        assertTrue(!StatusReport.of(List.of(a, b), List.of()).summary().contains("different voters"));
    }

    @Test
    void noAnswerIsUnreachable() {
        StatusReport r = StatusReport.of(List.of(), List.of("127.0.0.1:7500-7520"));
        assertEquals(StatusReport.Health.UNREACHABLE, r.health());
        assertEquals(3, r.health().exit);
        assertTrue(r.summary().startsWith("UNREACHABLE: no replica answered"), r.summary());
    }
}
