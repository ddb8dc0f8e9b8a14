package org.fts.goa.behaviour;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Set;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import fts_goa_test.CounterHelper;
import org.fts.process.Waits;
import org.junit.jupiter.api.Test;

/** Each replica's state over JMX ({@code org.fts:type=Replica}), as an operator's console reads it. */
class ReplicaJmxInJvmTest {
    private static final MBeanServer JMX = ManagementFactory.getPlatformMBeanServer();

    private static Object attribute(int replica, String name) {
        try {
            return JMX.getAttribute(new ObjectName("org.fts:type=Replica,group=\"goa\",member=\"r" + replica
                    + "\""), name);
        } catch (javax.management.JMException e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void servingViewCacheAndStateTransfersAreReadableAndFollowTheReplica() throws Exception {
        try (InJvmReplicas r = new InJvmReplicas(3)) {
            for (int i = 0; i < 3; i++) {
                assertEquals(true, attribute(i, "Serving"));
                assertEquals(true, attribute(i, "Primary"));
                assertEquals("", attribute(i, "NotServing"));
                assertEquals(3, ((String) attribute(i, "View")).split(",").length);
                assertEquals(0, attribute(i, "RequestsInFlight"));
            }
            long version = (Long) attribute(0, "GroupVersion");
            var counter = CounterHelper.narrow(r.at(0, "counter"));
            counter.increment();

            r.network().partition(InJvmReplicas.GROUP, List.of(Set.of(r.member(2))));
            Waits.await(() -> !(Boolean) attribute(2, "Serving"), Duration.ofSeconds(20), () -> "r2 still serves");
            assertTrue(((String) attribute(2, "NotServing")).contains("holds 1 of the 3 replicas"),
                    (String) attribute(2, "NotServing"));
            Waits.await(() -> ((String) attribute(0, "View")).split(",").length == 2, Duration.ofSeconds(20),
                    () -> "r0's view still has 3 members");
            counter.increment();   // r2 misses it

            r.network().heal(InJvmReplicas.GROUP);
            Waits.await(() -> (Boolean) attribute(2, "Serving"), Duration.ofSeconds(30),
                    () -> "r2 does not serve again: " + attribute(2, "NotServing"));

            // A provider counts a transfer once it sent the last chunk, which its requester may install first.
            Waits.await(() -> (Long) attribute(0, "StateTransfersProvided") + (Long) attribute(1, "StateTransfersProvided")
                    >= (Long) attribute(2, "StateTransfersInstalled"), Duration.ofSeconds(10),
                    () -> "the providers' count did not catch up with r2's installs");
            // A restarted replica always fetches the state (after a heal it may also catch up from the log).
            long provided = (Long) attribute(0, "StateTransfersProvided") + (Long) attribute(1, "StateTransfersProvided");
            String before = attribute(0, "StateTransfersProvided") + "+" + attribute(1, "StateTransfersProvided") + " r2 installed "
                    + attribute(2, "StateTransfersInstalled");
            r.stop(2);
            counter.increment();
            r.startReplica(2);
            Waits.await(() -> (Boolean) attribute(2, "Serving"), Duration.ofSeconds(30),
                    () -> "the restarted r2 does not serve: " + attribute(2, "NotServing"));
            assertEquals(1L, attribute(2, "StateTransfersInstalled"), "the restarted r2 installed the group's state");
            // The same race as above: r2 may serve before its provider counted the transfer.
            Waits.await(() -> (Long) attribute(0, "StateTransfersProvided") + (Long) attribute(1, "StateTransfersProvided")
                    > provided, Duration.ofSeconds(10), () -> "no provider counted r2's transfer; before " + before);
            assertEquals(provided + 1, (Long) attribute(0, "StateTransfersProvided")
                    + (Long) attribute(1, "StateTransfersProvided"), () -> "one member of the group provided it; before "
                    + before + ", now " + attribute(0, "StateTransfersProvided") + "+" + attribute(1, "StateTransfersProvided"));
            assertTrue((Long) attribute(0, "GroupVersion") >= version);
        }
    }
}
