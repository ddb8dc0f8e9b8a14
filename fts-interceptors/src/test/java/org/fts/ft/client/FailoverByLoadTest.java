package org.fts.ft.client;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;

import org.fts.ft.FtGroupLoad;
import org.junit.jupiter.api.Test;

/** An FT client's first redirect goes to the least loaded other replica its replies told of (docs/placement.md). */
class FailoverByLoadTest {
    private static final List<String> GROUP = List.of("h:1", "h:2", "h:3", "h:4");

    @Test
    void theLeastLoadedOtherReplicaIsChosen() {
        assertEquals(3, FtClientInterceptor.leastLoaded(GROUP, 0, Map.of("h:2", 9L, "h:3", 7L, "h:4", 2L)));
        assertEquals(1, FtClientInterceptor.leastLoaded(GROUP, 3, Map.of("h:1", 9L, "h:2", 1L, "h:4", 0L)),
                "never the replica that failed, however idle it looked");
    }

    @Test
    void withoutLoadsOrOnTiesTheOrderAfterTheFailedOneDecides() {
        assertEquals(2, FtClientInterceptor.leastLoaded(GROUP, 1, Map.of()));
        assertEquals(0, FtClientInterceptor.leastLoaded(GROUP, 3, Map.of("h:1", 4L, "h:3", 4L)));
        assertEquals(0, FtClientInterceptor.leastLoaded(GROUP, -1, Map.of()), "the failed replica unknown");
        assertEquals(3, FtClientInterceptor.leastLoaded(GROUP, -1, Map.of("h:4", 1L)));
    }

    @Test
    void theLoadsContextRoundTrips() {
        Map<String, Long> loads = Map.of("127.0.0.1:20001", 17L, "127.0.0.1:20002", 0L);
        assertEquals(loads, FtGroupLoad.decode(new FtGroupLoad(loads).encode()).loads());
    }
}
