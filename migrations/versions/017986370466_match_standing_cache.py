"""match standing cache

``match.standing``: the totals after the last hand, rewritten by the services on
every change (a cache; the hands stay the truth).  Empty for the matches that
exist before this revision: they are read from their hands, as before, until
their next change fills it.

Revision ID: 017986370466
Revises: 9b40614011a3
Create Date: 2026-11-22 16:23:32.600510

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '017986370466'
down_revision = '9b40614011a3'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.add_column(sa.Column('standing', sa.JSON(), nullable=True))


def downgrade():
    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.drop_column('standing')
