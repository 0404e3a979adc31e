"""the player who declared (team games) and the party at fault of a forfeit

``hand.declarer_seat``: in Kreuzbinokel a party is a team; the seat says which
partner declared.  ``hand.at_fault``: a forfeit charged to the party at fault
(caught signalling); None is the declarer, which every older forfeit was.

Revision ID: d5b8e3f1a2c4
Revises: c4e1a7d2b9f0
Create Date: 2026-11-23 23:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd5b8e3f1a2c4'
down_revision = 'c4e1a7d2b9f0'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('hand', schema=None) as batch_op:
        batch_op.add_column(sa.Column('declarer_seat', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('at_fault', sa.Integer(), nullable=True))


def downgrade():
    with op.batch_alter_table('hand', schema=None) as batch_op:
        batch_op.drop_column('at_fault')
        batch_op.drop_column('declarer_seat')
