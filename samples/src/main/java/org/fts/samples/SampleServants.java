package org.fts.samples;

import org.fts.replica.ServantProvider;
import org.fts.replica.Servants;

/**
 * The sample objects as a {@link ServantProvider} (name {@code samples}): {@code hello}, {@code counter},
 * {@code account}, {@code bank} (which opens accounts {@code acct-1}, ... while serving, and records each transfer with the audit
 * service {@code samples.bank.audit} names, if any), {@code audit}, {@code probe} with
 * {@code samples.wall_clock_probe=true} (a servant that is not deterministic), and {@code hello-0} … {@code hello-<N-1>} for {@code samples.hello_objects=N} (one HelloObj per
 * load client, as in the paper's experiment). {@code samples.ballast_mb=M} gives {@code hello} M megabytes of
 * state, the same on every replica (the state-transfer benchmark).
 */
public final class SampleServants implements ServantProvider {
    /** The objects every sample replica serves. */
    public static final String[] IDS = {"hello", "counter", "account", "bank", "audit"};

    @Override
    public String name() {
        return "samples";
    }

    @Override
    public void activate(Servants servants) throws Exception {
        java.util.Properties config = servants.config();
        int ballastMb = Integer.parseInt(config.getProperty("samples.ballast_mb", "0"));
        int helloObjects = Integer.parseInt(config.getProperty("samples.hello_objects", "0"));
        servants.activate("hello", new HelloObjImpl(ballast(ballastMb)));
        servants.activate("counter", new CounterImpl());
        servants.activate("account", new AccountImpl());
        BankImpl bank = new BankImpl(servants.poa(), config.getProperty("samples.bank.audit"));
        servants.activate("bank", bank);
        try {
            servants.poa().set_servant_manager(bank.activator());   // makes the accounts a joiner lacks
        } catch (org.omg.PortableServer.POAPackage.WrongPolicy plainPoa) {
            // a plain POA (--plain): no replica ever joins
        }
        servants.activate("audit", new AuditImpl());
        if (Boolean.parseBoolean(config.getProperty("samples.wall_clock_probe", "false"))) {
            servants.activate("probe", new ProbeImpl());
        }
        for (int i = 0; i < helloObjects; i++) {
            servants.activate("hello-" + i, new HelloObjImpl());
        }
    }

    /** {@code mb} megabytes of a deterministic pattern: the same on every replica. */
    static String ballast(int mb) {
        if (mb == 0) {
            return "";
        }
        StringBuilder b = new StringBuilder(mb << 20);
        for (int i = 0; b.length() < mb << 20; i++) {
            b.append(Integer.toHexString(i * 0x9E3779B1)).append(' ');
        }
        b.setLength(mb << 20);
        return b.toString();
    }
}
