package org.fts.samples;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import fts_samples.Account;
import fts_samples.AccountHelper;
import fts_samples.Counter;
import fts_samples.CounterHelper;
import fts_samples.HelloObj;
import fts_samples.HelloObjHelper;
import fts_samples.InsufficientFunds;
import org.omg.CORBA.ORB;

/**
 * A plain CORBA client: standard calls and ORB properties only, no FTS code at all. Usage:
 * {@code PlainClient GROUP PORT [PORT ...]}: a set through the first replica and the get through the second,
 * counter increments spread over all of them, and a withdrawal that raises InsufficientFunds.
 */
public final class PlainClient {
    private PlainClient() {
    }

    public static void main(String[] args) throws Exception {
        String group = args[0];
        List<Integer> ports = new ArrayList<>();
        for (int i = 1; i < args.length; i++) {
            ports.add(Integer.parseInt(args[i]));
        }
        ORB orb = ORB.init(new String[0], Clients.orbDefaults());
        try {
            run(orb, group, ports);
        } finally {
            orb.shutdown(false);
        }
    }

    public static void run(ORB orb, String group, List<Integer> ports) throws Exception {
        int n = ports.size();
        HelloObj h0 = HelloObjHelper.narrow(orb.string_to_object(Clients.corbaloc("127.0.0.1", ports.get(0), group, "hello")));
        HelloObj h1 = HelloObjHelper.narrow(orb.string_to_object(Clients.corbaloc("127.0.0.1", ports.get(1 % n), group, "hello")));
        String text = "hello from a plain client";
        h0.set(text);
        System.out.printf("set(\"%s\") through replica 0 (port %d)%n", text, ports.get(0));
        System.out.printf("get() through replica 1 (port %d) -> \"%s\"%n", ports.get(1 % n), h1.get());

        List<Counter> counters = new ArrayList<>();
        for (int p : ports) {
            counters.add(CounterHelper.narrow(orb.string_to_object(Clients.corbaloc("127.0.0.1", p, group, "counter"))));
        }
        int threads = 6;
        int each = 20;
        List<Integer> values = Collections.synchronizedList(new ArrayList<>());
        List<Thread> ts = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Counter c = counters.get(t % n);
            Thread th = new Thread(() -> {
                for (int k = 0; k < each; k++) {
                    values.add(c.increment());
                }
            });
            ts.add(th);
            th.start();
        }
        for (Thread th : ts) {
            th.join();
        }
        List<Integer> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        boolean exact = true;
        for (int i = 1; i < sorted.size(); i++) {
            exact &= sorted.get(i) == sorted.get(i - 1) + 1;
        }
        System.out.printf("%d threads x %d increment() spread over %d replicas: %d values, %d..%d, %s%n", threads, each,
                n, sorted.size(), sorted.get(0), sorted.get(sorted.size() - 1),
                exact && sorted.size() == threads * each ? "each exactly once" : "NOT each exactly once");
        for (int i = 0; i < n; i++) {
            System.out.printf("counter.value() at replica %d -> %d%n", i, counters.get(i).value());
        }

        Account a = AccountHelper.narrow(orb.string_to_object(Clients.corbaloc("127.0.0.1", ports.get(0), group, "account")));
        a.deposit(100);
        try {
            AccountHelper.narrow(orb.string_to_object(Clients.corbaloc("127.0.0.1", ports.get(n - 1), group, "account")))
                    .withdraw(500);
            System.out.println("withdraw(500) succeeded: WRONG");
        } catch (InsufficientFunds e) {
            System.out.printf("withdraw(500) through replica %d -> InsufficientFunds(balance=%d, requested=%d)%n", n - 1,
                    e.balance, e.requested);
        }
    }

    /**
     * Resolves {@code name} in the CosNaming service at {@code url} (the replicas bind their object groups
     * there, {@code fts.naming.url}) and increments the counter through it. Waits up to 30 s for the binding.
     */
    public static void byName(ORB orb, String url, String name) throws Exception {
        org.omg.CosNaming.NamingContextExt ns = org.omg.CosNaming.NamingContextExtHelper.narrow(orb.string_to_object(url));
        long deadline = System.nanoTime() + 30_000_000_000L;
        org.omg.CORBA.Object ref = null;
        while (ref == null) {
            try {
                ref = ns.resolve_str(name);
            } catch (org.omg.CosNaming.NamingContextPackage.NotFound e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + " was not bound in " + url + " within 30 s");
                }
                Thread.sleep(100);   // polling for the binding, bounded by the deadline
            }
        }
        System.out.printf("naming: resolve_str(\"%s\") -> the counter's object group reference; increment() "
                + "through it -> %d%n", name, CounterHelper.narrow(ref).increment());
    }
}
