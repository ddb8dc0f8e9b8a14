package org.fts.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.IntSupplier;

import fts_samples.Counter;
import fts_samples.CounterHelper;
import org.fts.goa.behaviour.CounterLoad;
import org.fts.testkit.ReplicaCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/** Three replica JVMs on JGroups over loopback, and a plain CORBA client (no FTS code) against them. */
class GoaProcessTest {
    private static ReplicaCluster cluster;
    private static ORB orb;

    @BeforeAll
    static void start() throws Exception {
        cluster = new ReplicaCluster("proc-" + UUID.randomUUID().toString().substring(0, 6), 3, false, List.of(),
                Path.of("target", "child-logs"));
        orb = ORB.init(new String[0], Clients.orbDefaults());
    }

    @AfterAll
    static void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static org.omg.CORBA.Object at(int i, String id) {
        return orb.string_to_object(Clients.corbaloc("127.0.0.1", cluster.ports().get(i), cluster.group(), id));
    }

    @Test
    void twentyPlainClientsSpreadOverThreeProcessesSeeEachValueOnce() throws Exception {
        int clients = 20;
        int each = 50;
        List<Counter> refs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            refs.add(CounterHelper.narrow(at(i, "counter")));
        }
        CounterLoad.runAndCheck(refs.stream().<IntSupplier>map(c -> c::increment).toList(), clients, each, 0);
        for (int i = 0; i < 3; i++) {
            assertEquals(clients * each, CounterHelper.narrow(at(i, "counter")).value(), "replica " + i);
        }
    }
}
