package com.example.bank;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.TreeSet;

import banking.Account;
import banking.AccountHelper;
import banking.Audit;
import banking.BankPOA;
import banking.InsufficientFunds;
import banking.UnknownAccount;
import org.fts.checkpoint.CheckpointableOperations;
import org.fts.checkpoint.InvalidState;
import org.fts.goa.RequestContext;
import org.omg.CORBA.BAD_PARAM;
import org.omg.CORBA.INTERNAL;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.Servant;
import org.omg.PortableServer.ServantActivator;

/**
 * The bank, written as for a plain POA; nothing in it is FTS's but {@link RequestContext}, the group's clock.
 * <ul>
 *   <li>{@link #open} creates an account object and {@link #close} destroys one, from inside the request: every
 *       replica executes it at the same position of the order, so every replica creates or destroys it alike.</li>
 *   <li>{@link #activator} makes an account's servant at a replica that joins after accounts were opened; the
 *       account's balance then comes with the group's state.</li>
 *   <li>{@link #transfer} calls the audit services in other processes: the replicated one executes the call once
 *       (every bank replica's copy carries the same FT_REQUEST identity), the plain one is called by one bank replica
 *       and every replica goes on with its answer ({@code fts.outcalls=ordered} in the replicas' configuration).</li>
 *   <li>{@link #statement} is stamped with the group's time, not this replica's clock.</li>
 * </ul>
 * Its own state is the next account number, the numbers of transfers and of audited ones, and the open accounts; each
 * balance is the account's.
 */
public class BankImpl extends BankPOA implements CheckpointableOperations {
    private final POA poa;
    private final Audit replicatedAudit;
    private final Audit plainAudit;
    private long next = 1;
    private long transfers;
    /** Transfers that called the audit services: each entry is numbered, so that a lost or repeated call shows. */
    private long audits;
    private final TreeSet<String> open = new TreeSet<>();

    /** @param replicatedAudit an audit object group, or null; @param plainAudit a plain audit object, or null */
    public BankImpl(POA poa, Audit replicatedAudit, Audit plainAudit) {
        this.poa = poa;
        this.replicatedAudit = replicatedAudit;
        this.plainAudit = plainAudit;
    }

    /** Register with {@code poa.set_servant_manager} before the POA manager is activated: accounts are AccountImpl. */
    public ServantActivator activator() {
        return new Activator();
    }

    private static final class Activator extends org.omg.CORBA.LocalObject implements ServantActivator {
        @Override
        public Servant incarnate(byte[] oid, POA adapter) {
            String id = new String(oid, StandardCharsets.UTF_8);
            if (!id.startsWith("acct-")) {
                throw new org.omg.CORBA.OBJECT_NOT_EXIST("no such account: " + id);
            }
            return new AccountImpl(id, 0);   // its balance follows, from the group's state
        }

        @Override
        public void etherealize(byte[] oid, POA adapter, Servant servant, boolean cleanup, boolean remaining) {
            // an account holds nothing outside its state
        }
    }

    @Override
    public synchronized Account open(long initial) {
        if (initial < 0) {
            throw new BAD_PARAM("an account opens with a negative balance: " + initial);
        }
        String id = "acct-" + next;
        byte[] oid = id.getBytes(StandardCharsets.UTF_8);
        try {
            poa.activate_object_with_id(oid, new AccountImpl(id, initial));
            next++;
            open.add(id);
            return AccountHelper.narrow(poa.create_reference_with_id(oid, AccountHelper.id()));
        } catch (org.omg.PortableServer.POAPackage.ServantAlreadyActive
                 | org.omg.PortableServer.POAPackage.ObjectAlreadyActive
                 | org.omg.PortableServer.POAPackage.WrongPolicy e) {
            throw new INTERNAL("account " + id + " exists already: " + e);
        }
    }

    @Override
    public synchronized void close(String id, String into) throws UnknownAccount {
        AccountImpl gone = account(id);
        AccountImpl heir = account(into);
        if (id.equals(into)) {
            throw new BAD_PARAM("an account cannot be closed into itself: " + id);
        }
        heir.deposit(gone.balance());
        open.remove(id);
        try {
            poa.deactivate_object(id.getBytes(StandardCharsets.UTF_8));
        } catch (org.omg.PortableServer.POAPackage.ObjectNotActive | org.omg.PortableServer.POAPackage.WrongPolicy e) {
            throw new INTERNAL("account " + id + " was open but not active: " + e);
        }
    }

    @Override
    public synchronized void transfer(String from, String to, long amount) throws UnknownAccount, InsufficientFunds {
        AccountImpl a = account(from);
        AccountImpl b = account(to);
        if (amount <= 0 || from.equals(to)) {
            throw new BAD_PARAM("a transfer moves a positive amount between two accounts");
        }
        if (a.balance() < amount) {
            throw new InsufficientFunds(a.balance(), amount);
        }
        // Audited first: if a call fails, the money does not move. The plain audit's outcome is ordered, so it is the
        // same at every replica. The replicated audit answers every replica's copy from its reply cache; a replica
        // whose copy got another answer (it lagged past the cache's window) diverges, and the divergence check stops
        // it (docs/goa.md). An entry recorded by a call that succeeded stays if the other call then fails.
        String entry = "transfer-" + (++audits) + ": " + from + " -> " + to + " " + amount;
        if (replicatedAudit != null) {
            replicatedAudit.record(entry);
        }
        if (plainAudit != null) {
            plainAudit.record(entry);
        }
        a.withdraw(amount);
        b.deposit(amount);
        transfers++;
    }

    @Override
    public synchronized String statement(String id) throws UnknownAccount {
        return id + " holds " + account(id).balance() + " at " + RequestContext.current().instant();
    }

    @Override
    public synchronized long total() {
        long sum = 0;
        for (String id : open) {
            try {
                sum += account(id).balance();
            } catch (UnknownAccount e) {
                throw new INTERNAL("open account " + id + " has no servant");
            }
        }
        return sum;
    }

    @Override
    public synchronized long transfers() {
        return transfers;
    }

    private AccountImpl account(String id) throws UnknownAccount {
        if (!open.contains(id)) {
            throw new UnknownAccount(id);
        }
        try {
            return (AccountImpl) poa.id_to_servant(id.getBytes(StandardCharsets.UTF_8));
        } catch (org.omg.PortableServer.POAPackage.ObjectNotActive | org.omg.PortableServer.POAPackage.WrongPolicy e) {
            throw new INTERNAL("open account " + id + " has no servant: " + e);
        }
    }

    @Override
    public synchronized byte[] get_state() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(b)) {
            out.writeLong(next);
            out.writeLong(transfers);
            out.writeLong(audits);
            out.writeInt(open.size());
            for (String id : open) {
                out.writeUTF(id);
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return b.toByteArray();
    }

    @Override
    public synchronized void set_state(byte[] s) throws InvalidState {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(s))) {
            long n = in.readLong();
            long t = in.readLong();
            long a = in.readLong();
            TreeSet<String> ids = new TreeSet<>();
            for (int i = in.readInt(); i > 0; i--) {
                ids.add(in.readUTF());
            }
            next = n;
            transfers = t;
            audits = a;
            open.clear();
            open.addAll(ids);
        } catch (IOException e) {
            throw new InvalidState("a bank's state: " + e);
        }
    }
}
