package com.example.bank;

import banking.AuditHelper;
import org.omg.CORBA.ORB;
import org.omg.PortableServer.POA;
import org.omg.PortableServer.POAHelper;

/**
 * One replica of the bank: {@code BankReplica BANK-IOR-FILE REPLICATED-AUDIT-IOR-FILE PLAIN-AUDIT-IOR-FILE}, its ORB
 * configured by {@code -Dcustom.props=config/bank-N.properties}. Activates the bank, registers the servant activator
 * that makes the accounts a joining replica lacks, writes the bank's object group reference, and serves until
 * stopped (SIGTERM leaves the group gracefully).
 */
public final class BankReplica {
    private BankReplica() {
    }

    public static void main(String[] args) throws Exception {
        ORB orb = ORB.init(new String[0], null);
        POA poa = POAHelper.narrow(orb.resolve_initial_references("GroupPOA"));   // the one FTS line
        BankImpl bank = new BankImpl(poa, AuditHelper.narrow(IorFile.read(orb, args[1])),
                AuditHelper.narrow(IorFile.read(orb, args[2])));
        byte[] id = "bank".getBytes(java.nio.charset.StandardCharsets.UTF_8);    // the same on every replica
        poa.activate_object_with_id(id, bank);
        poa.set_servant_manager(bank.activator());
        poa.the_POAManager().activate();   // returns once this replica holds the group's state
        IorFile.write(orb, poa.id_to_reference(id), args[0]);
        System.out.println("bank replica ready");
        System.out.flush();
        orb.run();
    }
}
