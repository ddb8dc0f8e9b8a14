package org.fts.samples;

import org.fts.testkit.ReplicaCluster;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.UUID;

import fts_samples.HelloObj;
import fts_samples.HelloObjHelper;
import org.fts.gc.FailStop;
import org.fts.process.Waits;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.omg.CORBA.ORB;

/**
 * Fail-stop with real processes: an OutOfMemoryError on one replica's execution thread (injected into that
 * replica's servant only) must not leave it running with a dead thread or a state that differs from the
 * others'. It halts with exit status {@link FailStop#EXIT_CODE}; the other two go on serving, the request
 * included; restarted, it fetches the group's state and its digest equals theirs.
 */
class FailStopProcessTest {
    private ReplicaCluster cluster;
    private ORB orb;

    @AfterEach
    void stop() {
        if (orb != null) {
            orb.shutdown(false);
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aLocalErrorHaltsTheReplicaWhichComesBackWithTheGroupsState() throws Exception {
        cluster = new ReplicaCluster("fs-" + UUID.randomUUID().toString().substring(0, 6), 3, false,
                List.of("-Dsamples.poison=r1:boom"), Path.of("target", "child-logs"));
        orb = ORB.init(new String[0], Clients.ftDefaults());
        HelloObj hello = HelloObjHelper.narrow(orb.string_to_object(cluster.reference("hello")));
        hello.set("before");
        hello.set("boom");   // r1 fails on it; r0 and r2 execute it and answer
        OptionalInt status = cluster.awaitExit(1, Duration.ofSeconds(30));
        assertTrue(status.isPresent(), "r1 halted");
        assertEquals(FailStop.EXIT_CODE, status.getAsInt(), "the fail-stop exit status");
        String log = Files.readString(Path.of("target", "child-logs", cluster.group() + "-r1.err"));
        assertTrue(log.contains("FATAL") && log.contains("OutOfMemoryError"), "r1 logged the cause");
        assertEquals("boom", hello.get(), "the others serve, the request included");
        hello.set("after");
        cluster.restart(1, List.of());   // serves once it holds the group's state
        List<String> digests = new ArrayList<>();
        Waits.await(() -> {
            digests.clear();
            for (int i = 0; i < 3; i++) {
                try {
                    digests.add(cluster.digest(i));
                } catch (Exception e) {
                    return false;
                }
            }
            return new HashSet<>(digests).size() == 1;
        }, Duration.ofSeconds(30), () -> "equal digests: " + digests);
    }
}
