package org.fts.samples;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.TreeSet;

import fts_samples.Account;
import fts_samples.AccountHelper;
import fts_samples.BankPOA;
import fts_samples.InsufficientFunds;
import fts_samples.UnknownAccount;
import org.fts.checkpoint.CheckpointableOperations;
import org.fts.checkpoint.InvalidState;
import org.fts.goa.RequestContext;
import org.omg.CORBA.INTERNAL;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.Servant;
import org.omg.PortableServer.ServantActivator;

/**
 * A bank that opens and closes accounts while it serves: each account is an object of its own ({@link AccountImpl}),
 * activated by {@link #open} and deactivated by {@link #close} from inside the request, as a server does under a plain
 * POA. Its state is the next account number and the open accounts' ids; each account's balance is the account's own
 * state. {@link #activator} makes an account's servant for a replica that takes the group's state after accounts
 * were opened (the adaptor calls it for every account it lacks). With an audit service, each transfer calls it (a
 * nested invocation: docs/goa.md, "Calls out to other servers").
 */
public class BankImpl extends BankPOA implements CheckpointableOperations {
    private final POA poa;
    /** The audit service's reference (an object group's, or a plain object's), or null for none. */
    private final String auditReference;
    private fts_samples.Audit audit;
    private long next = 1;
    /** What the audit service answered last: the same at every replica only if each call's outcome is. */
    private long audited;
    /** Transfers that called the audit service: each one's entry is numbered, so that a lost or repeated call shows. */
    private long audits;
    private final TreeSet<String> open = new TreeSet<>();

    public BankImpl(POA poa) {
        this(poa, null);
    }

    /** @param auditReference a stringified reference of the audit service each transfer is recorded with, or null */
    public BankImpl(POA poa, String auditReference) {
        this.poa = poa;
        this.auditReference = auditReference == null || auditReference.isBlank() ? null : auditReference.trim();
    }

    /** The servant activator to register with {@code poa.set_servant_manager}: accounts are AccountImpl. */
    public ServantActivator activator() {
        return new Activator();
    }

    /** Accounts are AccountImpl; their balances come with the state. */
    private static final class Activator extends org.omg.CORBA.LocalObject implements ServantActivator {
        @Override
        public Servant incarnate(byte[] oid, POA adapter) {
            String id = new String(oid, StandardCharsets.UTF_8);
            if (!id.startsWith("acct-")) {
                throw new org.omg.CORBA.OBJECT_NOT_EXIST("no such account: " + id);
            }
            return new AccountImpl();
        }

        @Override
        public void etherealize(byte[] oid, POA adapter, Servant servant, boolean cleanup, boolean remaining) {
            // nothing held
        }
    }

    @Override
    public synchronized Account open() {
        String id = "acct-" + next;
        byte[] oid = id.getBytes(StandardCharsets.UTF_8);
        org.omg.CORBA.Object ref;
        try {
            poa.activate_object_with_id(oid, new AccountImpl());
            ref = poa.create_reference_with_id(oid, AccountHelper.id());
        } catch (org.omg.PortableServer.POAPackage.ServantAlreadyActive
                 | org.omg.PortableServer.POAPackage.ObjectAlreadyActive
                 | org.omg.PortableServer.POAPackage.WrongPolicy e) {
            throw new INTERNAL("account " + id + " exists already: " + e);
        }
        next++;
        open.add(id);
        return AccountHelper.narrow(ref);
    }

    @Override
    public synchronized void close(String id, String into) throws UnknownAccount {
        AccountImpl gone = account(id);
        AccountImpl heir = account(into);
        if (id.equals(into)) {
            throw new org.omg.CORBA.BAD_PARAM("an account cannot be closed into itself: " + id);
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
    public synchronized String transfer(String from, String to, long amount) throws UnknownAccount, InsufficientFunds {
        AccountImpl a = account(from);
        AccountImpl b = account(to);
        if (amount < 0) {
            throw new org.omg.CORBA.BAD_PARAM("negative transfer " + amount);
        }
        a.withdraw(amount);
        b.deposit(amount);
        if (auditReference != null) {   // a call out, from every replica: one FT_REQUEST identity for all of them
            if (audit == null) {
                audit = fts_samples.AuditHelper.narrow(_orb().string_to_object(auditReference));
            }
            String entry = "transfer-" + (++audits) + ": " + from + " -> " + to + " " + amount;
            audited = audit.record(entry);
            return entry;
        }
        return "";
    }

    @Override
    public synchronized String statement(String id) throws UnknownAccount {
        return id + " " + account(id).balance() + " " + RequestContext.current().instant();
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
    public synchronized int accounts() {
        return open.size();
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
            out.writeLong(audited);
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
            long a = in.readLong();
            long numbered = in.readLong();
            TreeSet<String> ids = new TreeSet<>();
            for (int i = in.readInt(); i > 0; i--) {
                ids.add(in.readUTF());
            }
            next = n;
            audited = a;
            audits = numbered;
            open.clear();
            open.addAll(ids);
        } catch (IOException e) {
            throw new InvalidState("a bank's state: " + e);
        }
    }
}
