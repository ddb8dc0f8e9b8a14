package org.fts.goa.giop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

/** Which connections the watchdog closes, at given times (no clock, no thread). */
class IoWatchdogTest {
    private static final long SECOND = 1_000_000_000L;

    private static final class Conn implements IoWatchdog.Watched {
        long since;
        final List<String> expired = new ArrayList<>();

        @Override
        public long busySince() {
            return since;
        }

        @Override
        public void expire(String why) {
            expired.add(why);
        }
    }

    @Test
    void onlyAMessageUnderWayForLongerThanTheTimeoutClosesItsConnection() {
        IoWatchdog dog = new IoWatchdog(5 * SECOND, false);
        Conn idle = new Conn();
        Conn young = new Conn();
        Conn stuck = new Conn();
        young.since = 100 * SECOND;
        stuck.since = 90 * SECOND;
        for (Conn c : List.of(idle, young, stuck)) {
            dog.watch(c);
        }
        dog.sweep(96 * SECOND);
        assertTrue(idle.expired.isEmpty(), "an idle connection has no clock");
        assertTrue(young.expired.isEmpty(), "4 s under way is within the timeout");
        assertEquals(1, stuck.expired.size(), "6 s under way is not");
        assertTrue(stuck.expired.get(0).contains("fts.giop.io_timeout"), stuck.expired.get(0));
        dog.sweep(97 * SECOND);
        assertEquals(1, stuck.expired.size(), "closed once: it is no longer watched");
        young.since = 0;   // its message completed
        dog.sweep(200 * SECOND);
        assertTrue(young.expired.isEmpty());
        dog.unwatch(idle);
        idle.since = 1;
        dog.sweep(200 * SECOND);
        assertTrue(idle.expired.isEmpty(), "a closed connection is not watched");
    }
}
