package org.fts.checker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;

import org.fts.checker.CounterCheck.Report;
import org.fts.checker.History.Kind;
import org.fts.checker.History.Op;
import org.fts.checker.History.Outcome;
import org.junit.jupiter.api.Test;

class CounterCheckTest {
    private static int[] values(int... v) {
        return v;
    }

    @Test
    void exactlyOnceWithUnknownIncrementsThatHappenedPasses() {
        Report r = CounterCheck.check(values(1, 2, 4, 3), 2, List.of(5, 5, 5));   // one INFO happened (value 5)
        assertTrue(r.passed(), r::toString);
        assertEquals(4, r.ok());
        assertEquals(2, r.info());
        assertTrue(CounterCheck.check(values(1, 2, 3), 2, List.of(3, 3, 3)).passed(), "INFO ones may not happen");
    }

    @Test
    void twoIncrementsReturningTheSameValueAreDuplicates() {
        Report r = CounterCheck.check(values(1, 2, 2, 3), 0, List.of(4, 4, 4));
        assertEquals(1, r.duplicates(), r::toString);
        assertFalse(r.passed());
        assertTrue(r.explanation().contains("2 (2x)"), r::toString);
    }

    @Test
    void aFinalValueBelowTheLargestReturnedIsLost() {
        Report r = CounterCheck.check(values(1, 2, 5), 2, List.of(5, 4, 5));
        assertEquals(1, r.lost(), r::toString);
        assertTrue(r.explanation().contains("r1 holds 4, below the largest value returned, 5"), r::toString);
    }

    @Test
    void aFinalValueBelowTheNumberOfOkIncrementsIsLost() {
        // each OK increment added one, whatever it returned
        Report r = CounterCheck.check(values(1, 2, 3, 3), 0, List.of(3, 3, 3));
        assertEquals(1, r.lost(), r::toString);
        assertEquals(1, r.duplicates(), r::toString);
    }

    @Test
    void aFinalValueAboveOkPlusInfoIsAnOverCount() {
        Report r = CounterCheck.check(values(1, 2, 3), 1, List.of(6, 6, 6));
        assertEquals(2, r.over(), r::toString);
        assertFalse(r.passed());
    }

    @Test
    void aReplicaWithoutAFinalValueFails() {
        Report r = CounterCheck.check(values(1), 0, Arrays.asList(1, null, 1));
        assertFalse(r.passed(), r::toString);
        assertTrue(r.explanation().contains("r1 gave no final value"), r::toString);
    }

    @Test
    void fromAHistoryFailedIncrementsDoNotCountAndRealTimeOrderIsChecked() {
        List<Op> ops = List.of(
                inc(1, "1", 0, 10, Outcome.OK), inc(2, "2", 20, 30, Outcome.OK),
                inc(3, null, 5, 40, Outcome.FAIL), inc(3, null, 50, 60, Outcome.INFO),
                new Op(1, "hello-0", Kind.WRITE, "x", 0, 1, Outcome.OK));
        Report r = CounterCheck.of(ops, List.of(3, 3, 3));
        assertTrue(r.passed(), r::toString);
        assertEquals(2, r.ok());
        assertEquals(1, r.info());
        // 2 completed before 1 was invoked: the counter went back
        Report back = CounterCheck.of(List.of(inc(1, "2", 0, 10, Outcome.OK), inc(2, "1", 20, 30, Outcome.OK)),
                List.of(2, 2, 2));
        assertEquals(1, back.reordered(), back::toString);
        assertFalse(back.passed());
        assertTrue(back.explanation().contains("c2 counter.increment()->1"), back::toString);
    }

    private static Op inc(int client, String value, long from, long to, Outcome outcome) {
        return new Op(client, "counter", Kind.INCREMENT, value, from, to, outcome);
    }
}
