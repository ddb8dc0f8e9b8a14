package org.fts.chaos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

import fts_samples.Account;
import fts_samples.AccountHelper;
import fts_samples.Bank;
import fts_samples.BankHelper;
import fts_samples.InsufficientFunds;
import fts_samples.UnknownAccount;
import org.fts.checker.History.Outcome;
import org.fts.ft.Ior;
import org.fts.samples.FailoverWorkload;
import org.omg.CORBA.OBJECT_NOT_EXIST;
import org.omg.CORBA.ORB;

/**
 * {@code --workload bank}: clients of the sample bank beside the registers' clients. Each opens accounts (objects the
 * group creates while serving), funds them, transfers from its own to anyone's, and closes its own into another of
 * its own (objects destroyed while serving). Money enters only by deposits: at the end every replica's bank must
 * hold at least the deposits answered OK and at most those plus the deposits whose outcome is unknown (no money
 * created or lost), and an account whose close was answered must answer {@code OBJECT_NOT_EXIST} at every replica.
 * An own open account that answers {@code OBJECT_NOT_EXIST}, or any other surprise, is an anomaly. Each transfer
 * calls the plain {@link AuditService} (an outgoing call, made by one replica, its outcome ordered) and answers the
 * entry it recorded, numbered by the bank: the audit must hold the entry of every transfer answered OK (at least
 * once); the entries recorded more than once, calls made again, are counted and reported.
 */
final class BankLoad {
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong depositedOk = new AtomicLong();
    private final AtomicLong depositedUnknown = new AtomicLong();
    private final AtomicLong operations = new AtomicLong();
    private final AtomicLong transfersOk = new AtomicLong();
    private final AtomicLong transfersUnknown = new AtomicLong();
    /** The audit entries of the transfers answered OK. */
    private final Set<String> auditedOk = ConcurrentHashMap.newKeySet();
    private final Set<String> open = ConcurrentHashMap.newKeySet();
    private final Set<String> closed = ConcurrentHashMap.newKeySet();
    private final List<String> anomalies = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean stop;

    /** What the bank's clients saw, and what the replicas held at the end. */
    record Report(long operations, long depositedOk, long depositedUnknown, List<Long> totals, int closedChecked,
                  long transfersOk, long transfersUnknown, int auditEntries, int auditRepeated, List<String> reasons,
                  List<String> auditReasons) {
        String line() {
            List<String> all = new ArrayList<>(reasons);
            all.addAll(auditReasons);
            return "  bank: " + operations + " operations, deposits " + depositedOk + " OK + " + depositedUnknown
                    + " unknown, totals per replica " + totals + ", " + closedChecked
                    + " closed accounts checked at every replica; transfers " + transfersOk + " OK + "
                    + transfersUnknown + " unknown, each OK one's audit entry checked; the audit holds " + auditEntries
                    + " entries, " + auditRepeated + " of them recorded again" + (all.isEmpty() ? "" : ": " + all);
        }
    }

    BankLoad(IntFunction<ORB> orbs, String bankReference, int replicas, int clients, long seed) {
        for (int c = 0; c < clients; c++) {
            ORB orb = orbs.apply(c);
            Bank bank = BankHelper.narrow(orb.string_to_object(FailoverWorkload.startingAt(bankReference,
                    c % replicas)));
            threads.add(client(c, orb, bank, new Random(seed * 7_000_003L + c)));
        }
    }

    void start() {
        threads.forEach(Thread::start);
    }

    /** Stops the clients after their current operation; returns how many are still in one after {@code bound}. */
    int stop(Duration bound) throws InterruptedException {
        stop = true;
        return Workload.joinAll(threads, bound);
    }

    private Thread client(int c, ORB orb, Bank bank, Random random) {
        List<String> mine = new ArrayList<>();
        java.util.Map<String, Account> refs = new java.util.HashMap<>();
        Thread t = new Thread(() -> {
            while (!stop) {
                operations.incrementAndGet();
                int op = random.nextInt(10);
                try {
                    if (mine.size() < 2 || op < 2) {
                        Account a = bank.open();
                        String id = idOf(orb, a);
                        mine.add(id);
                        refs.put(id, a);
                        open.add(id);
                        deposit(a, id, 1 + random.nextInt(100));
                    } else if (op < 4) {
                        String id = mine.get(random.nextInt(mine.size()));
                        deposit(refs.get(id), id, 1 + random.nextInt(100));
                    } else if (op < 9 || mine.size() < 3) {
                        String from = mine.get(random.nextInt(mine.size()));
                        List<String> anyone = new ArrayList<>(open);
                        String to = anyone.get(random.nextInt(anyone.size()));
                        if (!to.equals(from)) {
                            transfer(bank, from, to, 1 + random.nextInt(50));
                        }
                    } else {
                        String id = mine.remove(random.nextInt(mine.size()));
                        String into = mine.get(random.nextInt(mine.size()));
                        open.remove(id);   // no one transfers to it from now on
                        refs.remove(id);
                        bank.close(id, into);
                        closed.add(id);
                    }
                } catch (InsufficientFunds | UnknownAccount expected) {
                    // another client's close raced a transfer to its account, or not enough money: nothing moved
                } catch (OBJECT_NOT_EXIST e) {
                    anomalies.add("client " + c + ": " + e);   // its own open accounts exist
                } catch (RuntimeException e) {
                    // unknown or failed: the deposit's own accounting handled it; a close's account stays out
                }
            }
        }, "chaos-bank-" + c);
        t.setDaemon(true);
        return t;
    }

    private void transfer(Bank bank, String from, String to, long amount) throws UnknownAccount, InsufficientFunds {
        try {
            auditedOk.add(bank.transfer(from, to, amount));
            transfersOk.incrementAndGet();
        } catch (RuntimeException e) {
            if (Workload.outcomeOf(e) == Outcome.INFO) {
                transfersUnknown.incrementAndGet();
            }
            throw e;
        }
    }

    private void deposit(Account a, String id, long amount) {
        try {
            a.deposit(amount);
            depositedOk.addAndGet(amount);
        } catch (OBJECT_NOT_EXIST e) {
            throw e;
        } catch (RuntimeException e) {
            if (Workload.outcomeOf(e) == Outcome.INFO) {
                depositedUnknown.addAndGet(amount);
            }
            throw e;
        }
    }

    /** The account's id: the last part of its object key. */
    private static String idOf(ORB orb, Account a) {
        Ior.Iiop p = Ior.Iiop.decode(Ior.parse(orb.object_to_string(a)).profiles().get(0).data());
        String key = new String(p.objectKey(), java.nio.charset.StandardCharsets.UTF_8);
        return key.substring(key.lastIndexOf('/') + 1);
    }

    /**
     * After the run, with the replicas' digests equal: each replica's total and closed accounts, through a plain
     * reference to that replica ({@code at.apply(i, id)}), and the {@code audit} service's entries.
     */
    Report check(java.util.function.BiFunction<Integer, String, org.omg.CORBA.Object> at, int replicas,
                 List<String> audit) {
        List<String> reasons = new ArrayList<>(anomalies);
        List<String> auditReasons = new ArrayList<>();
        Set<String> held = new java.util.HashSet<>(audit);
        List<String> lost = auditedOk.stream().filter(e -> !held.contains(e)).sorted().toList();
        if (!lost.isEmpty()) {
            auditReasons.add(lost.size() + " transfers answered OK have no audit entry (an outgoing call lost), e.g. "
                    + lost.subList(0, Math.min(3, lost.size())));
        }
        List<Long> totals = new ArrayList<>();
        long low = depositedOk.get();
        long high = low + depositedUnknown.get();
        for (int i = 0; i < replicas; i++) {
            try {
                long total = BankHelper.narrow(at.apply(i, "bank")).total();
                totals.add(total);
                if (total < low || total > high) {
                    reasons.add("r" + i + "'s bank holds " + total + ", outside [" + low + ", " + high
                            + "]: money " + (total < low ? "lost" : "created"));
                }
            } catch (RuntimeException e) {
                reasons.add("r" + i + "'s bank did not answer: " + e);
            }
        }
        int checked = 0;
        for (String id : closed.stream().sorted().limit(50).toList()) {
            for (int i = 0; i < replicas; i++) {
                try {
                    AccountHelper.unchecked_narrow(at.apply(i, id)).balance();
                    reasons.add(id + " was closed but r" + i + " answers for it");
                } catch (OBJECT_NOT_EXIST gone) {
                    // as it must
                } catch (RuntimeException e) {
                    reasons.add(id + " at r" + i + ": " + e);
                }
            }
            checked++;
        }
        return new Report(operations.get(), depositedOk.get(), depositedUnknown.get(), totals, checked,
                transfersOk.get(), transfersUnknown.get(), audit.size(), audit.size() - held.size(),
                List.copyOf(reasons), List.copyOf(auditReasons));
    }
}
