package com.example.bank;

import java.nio.ByteBuffer;

import banking.AccountPOA;
import banking.InsufficientFunds;
import org.fts.checkpoint.CheckpointableOperations;
import org.fts.checkpoint.InvalidState;

/**
 * One account: an object the bank creates while it serves. Its state is its balance (8 bytes), which a replica that
 * joins later receives through get_state/set_state once the bank's {@link BankImpl#activator() servant activator}
 * has made its servant.
 */
public class AccountImpl extends AccountPOA implements CheckpointableOperations {
    private final String id;
    private long balance;

    AccountImpl(String id, long balance) {
        this.id = id;
        this.balance = balance;
    }

    @Override
    public String id() {
        return id;
    }

    @Override
    public synchronized long balance() {
        return balance;
    }

    synchronized void deposit(long amount) {
        balance += amount;
    }

    synchronized void withdraw(long amount) throws InsufficientFunds {
        if (amount > balance) {
            throw new InsufficientFunds(balance, amount);
        }
        balance -= amount;
    }

    @Override
    public synchronized byte[] get_state() {
        return ByteBuffer.allocate(8).putLong(balance).array();
    }

    @Override
    public synchronized void set_state(byte[] s) throws InvalidState {
        if (s.length != 8) {
            throw new InvalidState("an account's state is 8 bytes, not " + s.length);
        }
        balance = ByteBuffer.wrap(s).getLong();
    }
}
