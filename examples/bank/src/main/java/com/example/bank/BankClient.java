package com.example.bank;

import java.nio.file.Files;
import java.nio.file.Path;

import banking.Account;
import banking.AccountHelper;
import banking.Audit;
import banking.AuditHelper;
import banking.Bank;
import banking.BankHelper;
import banking.InsufficientFunds;
import banking.UnknownAccount;
import org.omg.CORBA.ORB;

/**
 * A client of the bank: plain CORBA calls; {@code -Dcustom.props=config/client.properties} turns FTS failover on.
 * Usage: {@code BankClient RUN-DIR COMMAND}, the references in RUN-DIR ({@code bank.ior}, the audits', and each
 * account's as {@code open} wrote it), COMMAND one of {@code open AMOUNT | transfer FROM TO AMOUNT | close ID INTO |
 * balance ID | statement ID | total | transfers A B | audit}. Exits with status 1 when a check fails.
 */
public final class BankClient {
    private final ORB orb;
    private final Path run;
    private final Bank bank;

    private BankClient(ORB orb, Path run) throws Exception {
        this.orb = orb;
        this.run = run;
        this.bank = BankHelper.narrow(IorFile.read(orb, run.resolve("bank.ior").toString()));
    }

    public static void main(String[] args) throws Exception {
        ORB orb = ORB.init(new String[0], null);
        int status;
        try {
            status = new BankClient(orb, Path.of(args[0])).command(args);
        } finally {
            orb.shutdown(false);
        }
        System.exit(status);
    }

    private int command(String[] a) throws Exception {
        try {
            switch (a[1]) {
                case "open" -> {
                    Account account = bank.open(Long.parseLong(a[2]));
                    String id = account.id();
                    IorFile.write(orb, account, run.resolve(id + ".ior").toString());
                    System.out.println(id + " opened with " + a[2]);
                }
                case "transfer" -> {
                    bank.transfer(a[2], a[3], Long.parseLong(a[4]));
                    System.out.println(a[2] + " -> " + a[3] + ": " + a[4]);
                }
                case "close" -> {
                    bank.close(a[2], a[3]);
                    System.out.println(a[2] + " closed into " + a[3]);
                }
                case "balance" -> {
                    Account account = AccountHelper.unchecked_narrow(IorFile.read(orb,
                            run.resolve(a[2] + ".ior").toString()));
                    try {
                        System.out.println(a[2] + " holds " + account.balance());
                    } catch (org.omg.CORBA.OBJECT_NOT_EXIST e) {
                        System.out.println(a[2] + ": OBJECT_NOT_EXIST");
                    }
                }
                case "statement" -> System.out.println(bank.statement(a[2]));
                case "total" -> System.out.println("the accounts hold " + bank.total());
                case "transfers" -> {
                    return transfers(a[2], a[3]);
                }
                case "audit" -> {
                    return audit();
                }
                default -> throw new IllegalArgumentException("unknown command " + a[1]);
            }
        } catch (UnknownAccount e) {
            System.out.println("no account " + e.id);
            return 1;
        } catch (InsufficientFunds e) {
            System.out.println("insufficient funds: " + e.balance + " held, " + e.requested + " asked");
            return 1;
        }
        return 0;
    }

    /**
     * Transfers 1 from {@code a} to {@code b} and back, call after call, until RUN-DIR/stop exists (it creates
     * RUN-DIR/transfers.started once the first was answered); then says how many were answered and what the accounts
     * hold. Status 1 if a call was not answered.
     */
    private int transfers(String a, String b) throws Exception {
        Path stop = run.resolve("stop");
        Path started = run.resolve("transfers.started");
        Files.deleteIfExists(stop);   // left by an earlier run
        Files.deleteIfExists(started);
        long n = 0;
        while (!Files.exists(stop)) {
            try {
                if (n % 2 == 0) {
                    bank.transfer(a, b, 1);
                } else {
                    bank.transfer(b, a, 1);
                }
            } catch (org.omg.CORBA.SystemException e) {
                System.out.println("transfer " + (n + 1) + " failed: " + e);
                return 1;
            }
            if (n++ == 0) {
                Files.createFile(started);
            }
        }
        System.out.println(n + " transfers answered; the accounts hold " + bank.total());
        return 0;
    }

    /**
     * Checks the audits entry by entry against the bank's transfers, numbered 1 to {@code transfers()} (every transfer
     * of the guide moves money): the replicated audit must hold each exactly once, the plain one each at least once,
     * and neither anything else. Says how many of the plain one's entries were recorded again.
     */
    private int audit() throws Exception {
        long made = bank.transfers();
        Audit replicated = AuditHelper.narrow(IorFile.read(orb, run.resolve("audit.ior").toString()));
        Audit plain = AuditHelper.narrow(IorFile.read(orb, run.resolve("audit-plain.ior").toString()));
        java.util.Map<Long, Integer> once = numbered(replicated.entries());
        java.util.Map<Long, Integer> atLeastOnce = numbered(plain.entries());
        java.util.List<String> wrong = new java.util.ArrayList<>();
        for (long n = 1; n <= made; n++) {
            int r = once.getOrDefault(n, 0);
            int p = atLeastOnce.getOrDefault(n, 0);
            if (r != 1 || p < 1) {
                wrong.add("transfer-" + n + " is held " + r + " times by the replicated audit, " + p + " by the plain");
            }
        }
        if (once.size() != made || atLeastOnce.size() != made) {
            wrong.add("the audits hold " + once.size() + " and " + atLeastOnce.size() + " transfers, the bank made "
                    + made);
        }
        if (!wrong.isEmpty()) {
            System.out.println("audit: " + wrong.subList(0, Math.min(5, wrong.size())));
            return 1;
        }
        long repeated = atLeastOnce.values().stream().mapToLong(c -> c - 1).sum();
        System.out.println("every transfer audited: once by the replicated audit, at least once by the plain one ("
                + repeated + " repeated)");
        return 0;
    }

    /** How many times each transfer's entry ("transfer-N: ...") appears, by N. */
    private static java.util.Map<Long, Integer> numbered(String[] entries) {
        java.util.Map<Long, Integer> out = new java.util.HashMap<>();
        for (String e : entries) {
            long n = Long.parseLong(e.substring("transfer-".length(), e.indexOf(':')));
            out.merge(n, 1, Integer::sum);
        }
        return out;
    }
}
