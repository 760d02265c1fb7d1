/** The tenant. Brands are organizations with a parent (the company); each has its own operational data. */
export interface Organization {
  readonly id: string;
  readonly name: string;
  readonly parentOrganizationId: string | null;
  readonly createdAt: Date;
}
