// Integration and end-to-end tests talk to real services; give them room.
jest.setTimeout(90_000);
