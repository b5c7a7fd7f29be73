// Three messages about the user's accountant, and what a model would extract from each (the shape the capture
// validates); shared by the graph and context tests.
export const FIRST = 'Stefan Huber from Huber & Partner is my accountant';
export const SECOND = 'Anna Berger replaces Stefan as my accountant from March';
export const THIRD = "Anna's number is +43 660 1234567";

/** What a model would extract from each message (the shape the capture validates). */
export const accountantExtractions = {
  first: {
    entities: [
      { name: 'Stefan Huber', type: 'person' },
      { name: 'Huber & Partner', type: 'company' },
    ],
    relations: [
      {
        from: 'Stefan Huber',
        relation: 'works_at',
        to: 'Huber & Partner',
        evidence: 'Stefan Huber from Huber & Partner',
      },
      {
        from: 'Stefan Huber',
        relation: 'accountant_of',
        to: 'the user',
        evidence: 'Stefan Huber from Huber & Partner is my accountant',
      },
    ],
    facts: [{ text: FIRST, evidence: FIRST }],
  },
  second: {
    entities: [
      { name: 'Anna Berger', type: 'person' },
      { name: 'Stefan', type: 'person' },
    ],
    relations: [
      {
        from: 'Anna Berger',
        relation: 'accountant_of',
        to: 'the user',
        evidence: 'Anna Berger replaces Stefan as my accountant',
      },
    ],
    facts: [{ text: SECOND, evidence: SECOND }],
  },
  third: {
    entities: [{ name: 'Anna', type: 'person' }],
    relations: [],
    facts: [{ text: THIRD, subject: "Anna Berger's number", evidence: THIRD }],
  },
};
