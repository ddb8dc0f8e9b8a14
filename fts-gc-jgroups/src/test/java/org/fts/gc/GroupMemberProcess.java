package org.fts.gc;

import java.io.BufferedOutputStream;
import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * A group member in its own JVM, for the process-level tests. Usage:
 * {@code GroupMemberProcess GROUP NAME STACK MEMBERS COUNT RATE}. It joins, waits for a view of MEMBERS,
 * broadcasts COUNT messages "NAME:i" at about RATE per second, and prints one line per event on stdout:
 * {@code VIEW id m1,m2,..}, {@code D sender text}, {@code SENT n}. It exits when its stdin closes, so a dead
 * test never leaves it behind.
 */
public final class GroupMemberProcess {
    public static void main(String[] args) throws Exception {
        String group = args[0];
        String name = args[1];
        String stack = args[2];
        int members = Integer.parseInt(args[3]);
        int count = Integer.parseInt(args[4]);
        int rate = Integer.parseInt(args[5]);
        PrintStream out = new PrintStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out), 1 << 16),
                false, StandardCharsets.UTF_8);
        Thread watchdog = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    // nothing to read; EOF means the test is gone
                }
            } catch (IOException ignored) {
                // same as EOF
            }
            Runtime.getRuntime().halt(3);
        }, "stdin-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();

        Properties config = new Properties();
        config.setProperty("fts.gc", "jgroups");
        config.setProperty("fts.jgroups.stack", stack);
        CountDownLatch full = new CountDownLatch(1);
        GroupChannel ch = GroupChannels.create(config, name);
        ch.join(group, new GroupListener() {
            @Override
            public void deliver(MemberId sender, byte[] payload) {
                synchronized (out) {
                    out.println("D " + sender + " " + new String(payload, StandardCharsets.UTF_8));
                    out.flush();
                }
            }

            @Override
            public void viewAccepted(View view) {
                synchronized (out) {
                    out.println("VIEW " + view.id() + " "
                            + view.members().stream().map(MemberId::name).collect(Collectors.joining(",")));
                    out.flush();
                }
                if (view.size() >= members) {
                    full.countDown();
                }
            }
        });
        if (!full.await(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException(name + ": no view of " + members + " members within 60 s");
        }
        long gapNanos = 1_000_000_000L / rate;
        long next = System.nanoTime();
        for (int i = 0; i < count; i++) {
            ch.abcast((name + ":" + i).getBytes(StandardCharsets.UTF_8));
            next += gapNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);   // load pacing, not a test wait
            }
        }
        synchronized (out) {
            out.println("SENT " + count);
            out.flush();
        }
        Thread.currentThread().join();   // serve until stdin closes or we are killed
    }
}
