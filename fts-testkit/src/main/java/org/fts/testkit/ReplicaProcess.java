package org.fts.testkit;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;

import org.fts.process.ChildJvm;

/** One harness replica's current process ({@link HarnessReplica}) and what it said on stdout. */
final class ReplicaProcess {
    final ChildJvm jvm;
    /** Answers to commands, by the word they start with (DIGEST, VIEW). */
    final Map<String, BlockingQueue<String>> answers = new ConcurrentHashMap<>();
    final BlockingQueue<String> faults = new LinkedBlockingQueue<>();
    private final Map<String, String> references;
    volatile boolean ready;
    /** Its figures, over JMX. */
    final ReplicaJmx jmx;

    /**
     * @param service    run as a service manager runs it: no {@code --stdin-control}, stdin closed at once
     * @param references where the published object references go (the first of each id is kept)
     */
    ReplicaProcess(String name, List<String> jvmArgs, List<String> args, boolean plain, boolean service, Path logDir,
                   Map<String, String> references, Map<String, String> environment, String classPathFirst,
                   ReplicaJmx jmx) throws IOException {
        this.references = references;
        this.jmx = jmx;
        // commands on stdin, and the replica ends with this process (its stdin closes); or a service
        List<String> programArgs = new ArrayList<>(service ? List.of() : List.of("--stdin-control"));
        if (plain) {
            programArgs.add("--plain");
        }
        programArgs.addAll(args);
        this.jvm = ChildJvm.start(name, HarnessReplica.class, jvmArgs, programArgs, logDir, environment,
                classPathFirst, this::read);
        if (service) {
            jvm.closeStdin();
        }
    }

    private void read(String line) {
        if (line.startsWith("IOGR ")) {
            String[] f = line.split(" ", 3);
            references.putIfAbsent(f[1], f[2]);
        } else if (line.matches("(VIEW|DIGEST) .*")) {
            String[] f = line.split(" ", 3);
            answers.computeIfAbsent(f[0], k -> new LinkedBlockingQueue<>()).add(f.length > 2 ? f[2] : "");
        } else if (line.startsWith("ISOLATED ") || line.startsWith("HEALED ")) {
            faults.add(line.split(" ", 2)[0]);
        } else if (line.startsWith("READY")) {
            ready = true;
        }
    }
}
